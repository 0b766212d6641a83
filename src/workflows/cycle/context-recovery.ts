import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { ModelRequest, ModelResponse } from '../../core/cycle/model';
import { renderedSize } from '../../core/scratchpad/budget';
import { appendNote } from '../../core/scratchpad/update';
import { ModelError } from '../../common/failure-types';
import type { CycleRun } from './cycle-run';

/** The smallest rendered scratchpad a context refusal archives down to: the budget setting's own floor. */
const MIN_BUDGET_CHARS = 1000;

function isContextExceeded(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === ModelError.ContextExceeded
  );
}

/**
 * One model call whose prompt the context window refuses is not the cycle's end (design.md, Models): the scratchpad
 * archives down to half its rendered size, a note says so, and the request `rebuild` makes from the smaller memory
 * is sent once more.
 */
export async function callWithinContext(
  run: CycleRun,
  call: (request: ModelRequest) => Promise<ModelResponse>,
  request: ModelRequest,
  rebuild: () => ModelRequest,
): Promise<ModelResponse> {
  try {
    return await call(request);
  } catch (error) {
    if (!isContextExceeded(error)) throw error;
    const archived = await run.enforceBudget(Math.max(MIN_BUDGET_CHARS, Math.floor(renderedSize(run.state) / 2)));
    const line = `[CONTEXT] the prompt did not fit the model's context window: archived ${archived} characters and asked again`;
    run.state = { ...run.state, notes: appendNote(run.state.notes, line) };
    return call(rebuild());
  }
}
