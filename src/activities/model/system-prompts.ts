import { ApplicationFailure } from '@temporalio/common';
import type { SystemPromptId } from '../../core/cycle/model';
import { CYCLE_SYSTEM, REFLECT_SYSTEM, RESPOND_SINGLE_SYSTEM, RESPOND_SYSTEM } from '../../core/cycle/prompts';
import { RESEARCH_QUERY_SYSTEM, RESEARCH_STRATEGY_SYSTEM, RESEARCH_WORKER_SYSTEM } from '../../core/research/prompts';
import { STAGED_PLAN_SYSTEM, STAGED_SYSTEM_RULES } from '../../core/staged/prompts';
import { ModelError } from '../../common/failure-types';

/** The system prompt for each id a model request names: the kernel's, then the features', kept with their rules. */
export const SYSTEM_PROMPTS = {
  cycle: CYCLE_SYSTEM,
  respond: RESPOND_SYSTEM,
  respond_single: RESPOND_SINGLE_SYSTEM,
  reflect: REFLECT_SYSTEM,
  // CYCLE_SYSTEM carries the run-notes convention already.
  staged: `${CYCLE_SYSTEM}\n\n${STAGED_SYSTEM_RULES}`,
  staged_plan: STAGED_PLAN_SYSTEM,
  research_worker: RESEARCH_WORKER_SYSTEM,
  research_strategy: RESEARCH_STRATEGY_SYSTEM,
  research_query: RESEARCH_QUERY_SYSTEM,
} as const satisfies Readonly<Record<string, string>>;

/** The system prompt a request names; an id this worker has none for is the request's own error. */
export function systemPrompt(id: SystemPromptId): string {
  const prompts: Readonly<Record<string, string>> = SYSTEM_PROMPTS;
  const prompt = Object.hasOwn(prompts, id) ? prompts[id] : undefined;
  if (prompt === undefined) {
    throw ApplicationFailure.nonRetryable(`no system prompt "${id}" on this worker`, ModelError.BadRequest);
  }
  return prompt;
}
