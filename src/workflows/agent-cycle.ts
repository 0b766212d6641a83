import {
  ApplicationFailure,
  type RetryPolicy,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type CycleInput,
  CycleInputSchema,
  type CycleOutcome,
  type CycleResult,
  type ParsedCycleInput,
  type TraceEntry,
} from '../core/cycle';
import { type Dispatch, dispatch, recordToolResult } from '../core/dispatcher';
import { type ModelResponse, type Usage, ZERO_USAGE, addUsage } from '../core/model';
import { type Observation, observationText } from '../core/observation';
import { parseAction } from '../core/parse-action';
import { buildCyclePrompt } from '../core/prompts';
import type { Scratchpad } from '../core/scratchpad';
import { cycleOutcomeKey } from '../temporal/search-attributes';
import type { Activities } from '../activities';
import { failureMessage } from './failure';

export const beforeQuery = defineQuery<Scratchpad>('before');
export const currentQuery = defineQuery<Scratchpad>('current');
export const afterQuery = defineQuery<Scratchpad | null>('after');
export const traceQuery = defineQuery<TraceEntry[]>('trace');

const NON_RETRYABLE_MODEL_ERRORS = [
  'ModelError.BadRequest',
  'ModelError.Auth',
  'ModelError.NotFound',
  'ModelError.ScriptExhausted',
  'ModelError.NotConfigured',
  'ModelError.BadResponse',
];

function activitiesFor(input: ParsedCycleInput): Pick<Activities, 'callModel' | 'runTool'> {
  const retry: RetryPolicy = {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: input.maxAttempts,
  };
  const { callModel } = proxyActivities<Activities>({
    startToCloseTimeout: '3m',
    retry: { ...retry, nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS },
  });
  const { runTool } = proxyActivities<Activities>({ startToCloseTimeout: '2m', retry });
  return { callModel, runTool };
}

function parseInput(raw: CycleInput): ParsedCycleInput {
  const parsed = CycleInputSchema.safeParse(raw);
  // A ZodError thrown here would fail the workflow task forever; fail the workflow instead.
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid cycle input: ${parsed.error.message}`, 'CycleError.BadInput');
  return parsed.data;
}

function traceEntry(
  iteration: number,
  prompt: string,
  tools: string[],
  response: ModelResponse,
  step: Dispatch,
  observation?: Observation,
): TraceEntry {
  return {
    iteration,
    request: { promptChars: prompt.length, tools },
    response: {
      text: response.text.slice(0, 2000),
      toolCalls: response.toolCalls.map((call) => call.name),
      stopReason: response.stopReason,
    },
    dispatch: step.kind,
    ...('action' in step ? { action: { tool: step.action.tool, args: step.action.args } } : {}),
    ...(observation ? { observation: observationText(observation).slice(0, 2000) } : {}),
    ...('error' in step && step.error ? { error: step.error } : {}),
    usage: response.usage,
  };
}

/**
 * One wake → run → sleep cycle (seed 000): iterate model call → parse → dispatch until `done`
 * or `maxIterations`; an activity that gives up makes the outcome `failed` with the before-state.
 */
export async function agentCycle(rawInput: CycleInput): Promise<CycleResult> {
  const input = parseInput(rawInput);
  const cycleId = input.cycleId ?? workflowInfo().workflowId;
  const { callModel, runTool } = activitiesFor(input);
  const before = input.before;
  const trace: TraceEntry[] = [];
  let state: Scratchpad = before;
  let after: Scratchpad | null = null;
  setHandler(beforeQuery, () => before);
  setHandler(currentQuery, () => state);
  setHandler(afterQuery, () => after);
  setHandler(traceQuery, () => trace);

  let outcome: CycleOutcome = 'max_iterations';
  let usage: Usage = ZERO_USAGE;
  let iterations = 0;
  let error: string | undefined;
  try {
    for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
      iterations = iteration;
      const prompt = buildCyclePrompt(state, { iteration, maxIterations: input.maxIterations });
      const response = await callModel({
        system: 'cycle',
        messages: [{ role: 'user', content: prompt }],
        tools: [...input.tools, 'update_scratchpad', 'done'],
        toolChoice: 'any',
        model: input.model,
      });
      usage = addUsage(usage, response.usage);
      const step = dispatch(state, parseAction(response), input.tools);
      let observation: Observation | undefined;
      if (step.kind === 'tool') {
        observation = await runTool({ cycleId, step: iteration, name: step.action.tool, args: step.action.args });
        state = recordToolResult(step.state, step.action, observation);
      } else {
        state = step.state;
      }
      trace.push(traceEntry(iteration, prompt, input.tools, response, step, observation));
      if (step.kind === 'done') {
        outcome = 'completed';
        break;
      }
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    outcome = 'failed';
    error = failureMessage(err);
    state = { ...before, notes: `Cycle ${cycleId} failed: ${error}` };
  }
  after = state;
  upsertSearchAttributes([{ key: cycleOutcomeKey, value: outcome }]);
  return { agentId: input.agentId, cycleId, outcome, after, iterations, usage, ...(error ? { error } : {}) };
}
