import { type Offered, type Step, isOffered, recordToolResult, refuse, unknownTool } from '../../core/cycle/dispatch';
import type { Action } from '../../core/cycle/parse';
import { type Handled, planCalls } from '../../core/cycle/plan-calls';
import type { CycleRun } from './cycle-run';

/** One call as the kernel runs it: refused, not offered, a workflow-side tool's handler, or the `runTool` activity. */
async function runCall(
  run: CycleRun,
  action: Action,
  refusal: string | undefined,
  step: number,
  offered: Offered,
): Promise<Handled> {
  if (refusal !== undefined) return withObservation(refuse(run.state, action, refusal));
  if (!isOffered(action.tool, offered)) return withObservation(unknownTool(run.state, action, offered));
  const handler = run.handlerFor(action.tool);
  if (handler) return handler(run, action, step);
  const observation = await run.runTool(action, step);
  return { step: { kind: 'tool', state: run.state, action }, observation };
}

function withObservation(step: Extract<Step, { observation: unknown }>): Handled {
  return { step, observation: step.observation };
}

/**
 * Runs a response's calls in order under `planCalls`: each through the handler a feature registered under its name,
 * or the `runTool` activity; refused and unknown calls get an error observation. With `notes`, every observation
 * also goes to the scratchpad's notes (design.md, The cycle); a chat turn shows them within the turn instead.
 */
export async function runCalls(
  run: CycleRun,
  calls: readonly Action[],
  iteration: number,
  options: { offered: Offered; notes: boolean },
): Promise<Handled[]> {
  const handled: Handled[] = [];
  for (const { action, refusal } of planCalls(calls)) {
    const mark = run.approvals.mark();
    const outcome = await runCall(run, action, refusal, iteration, options.offered);
    if (outcome.observation && options.notes) run.state = recordToolResult(run.state, action, outcome.observation);
    const approvals = run.approvals.since(mark);
    handled.push(approvals.length > 0 ? { ...outcome, approvals } : outcome);
  }
  return handled;
}
