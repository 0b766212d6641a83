import type { SystemPromptId } from '../../core/cycle/model';
import { CYCLE_SYSTEM, REFLECT_SYSTEM, RESPOND_SINGLE_SYSTEM, RESPOND_SYSTEM } from '../../core/cycle/prompts';
import { RESEARCH_QUERY_SYSTEM, RESEARCH_STRATEGY_SYSTEM, RESEARCH_WORKER_SYSTEM } from '../../core/research/prompts';
import { STAGED_PLAN_SYSTEM, STAGED_SYSTEM_RULES } from '../../core/staged/prompts';

/** The system prompt for each id a model request names; the features' prompts live with their rules. */
export const SYSTEM_PROMPTS: Record<SystemPromptId, string> = {
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
};
