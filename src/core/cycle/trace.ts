import type { TraceEntry } from './input';
import type { ModelResponse } from './model';
import { type Observation, observationExcerpt } from '../tools/observation';
import type { Action } from './parse';
import type { Handled } from './plan-calls';
import { unknownOutcomeOf } from '../tools/idempotency';

/** Model text kept in a trace entry. */
export const TRACE_TEXT_CHARS = 2000;

/** One model call as the trace shows it, shared by the entries of its calls. */
export interface TraceCall {
  iteration: number;
  phase: 'task' | 'respond' | 'reflect';
  request: { promptChars: number; tools: string[] };
  response: ModelResponse;
  calls: readonly Action[];
}

interface TraceOutcome {
  dispatch: TraceEntry['dispatch'];
  action?: Action;
  observation?: Observation;
  error?: string;
  approvals?: TraceEntry['approvals'];
}

/** The trace entry for one outcome of a model call. */
export function traceEntry(call: TraceCall, outcome: TraceOutcome): TraceEntry {
  const { response, action, observation, error, approvals } = { ...call, ...outcome };
  const unknown = unknownOutcomeOf(observation);
  return {
    iteration: call.iteration,
    phase: call.phase,
    request: call.request,
    response: {
      text: response.text.slice(0, TRACE_TEXT_CHARS),
      toolCalls: call.calls.map((entry) => entry.tool),
      stopReason: response.stopReason,
    },
    dispatch: outcome.dispatch,
    ...(response.spec ? { model: response.spec } : {}),
    ...(action ? { action: { tool: action.tool, args: action.args } } : {}),
    ...(observation && action ? { observation: observationExcerpt(action.tool, observation) } : {}),
    ...(error ? { error } : {}),
    usage: response.usage,
    ...(approvals && approvals.length > 0 ? { approvals } : {}),
    ...(unknown ? { unknownOutcome: unknown } : {}),
  };
}

/** One entry per handled call, in order; an update in the reflect phase is traced as `reflect`. */
export function traceEntries(call: TraceCall, handled: readonly Handled[]): TraceEntry[] {
  return handled.map(({ step, observation, approvals }) =>
    traceEntry(call, {
      dispatch: call.phase === 'reflect' && step.kind === 'update' ? 'reflect' : step.kind,
      action: step.action,
      observation,
      error: 'error' in step ? step.error : undefined,
      approvals,
    }),
  );
}
