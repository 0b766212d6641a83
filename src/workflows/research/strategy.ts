import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { Message, ModelResponse } from '../../core/cycle/model';
import {
  aliasesOf,
  type GivenLists,
  type PlanVerdict,
  planCorrection,
  planFromResponse,
  planPrompt,
  planRequest,
  needsPlan,
  replySummary,
} from '../../core/research/plan';
import { initialStrategy, strategyOf } from '../../core/research/run';
import { failureMessage } from '../../common/failure';
import { modelActivityOptions } from '../cycle/activity-options';
import { callModelThroughList } from '../cycle/model-fallback';
import type { ResearchRun } from './research-run';

const { callModel } = proxyActivities<Activities>(modelActivityOptions(3));

/** Model calls per plan: the first, and one corrective retry after a refused plan. */
const PLAN_ATTEMPTS = 2;

/**
 * Writes the first STRATEGY. From lists the user gave it is written at once, with no model call and no await, so
 * such runs issue exactly the commands they did before planning existed (their saved histories replay); otherwise
 * the returned promise settles after the planning turn.
 */
export function writeFirstStrategy(run: ResearchRun, workerId: (n: number) => string): Promise<void> | undefined {
  if (needsPlan(run.input)) return planStrategy(run, workerId);
  run.appendAsSupervisor({ type: 'STRATEGY', body: initialStrategy(run.input, workerId) }, Date.now());
  return undefined;
}

/**
 * The supervisor's planning turn: when the input leaves out entities or fields, its model (`input.model`) turns
 * the question into goal, entities and fields, and they become the first STRATEGY. The reply is untrusted: a plan
 * refused twice, or a model that fails, ends the run `incomplete` with the reason and no worker started.
 */
async function planStrategy(run: ResearchRun, workerId: (n: number) => string): Promise<void> {
  setCurrentDetails(`**research ${run.input.runId}**: the supervisor is planning STRATEGY from the question`);
  const verdict = await askForPlan(run.input, (response) => run.countUsage(response.model, response.usage));
  if (verdict.ok) {
    // Aliases the user gave win over the model's for the same field.
    const given = aliasesOf(run.input.aliases, verdict.plan.fields);
    const plan = given ? { ...verdict.plan, aliases: { ...verdict.plan.aliases, ...given } } : verdict.plan;
    run.appendAsSupervisor({ type: 'STRATEGY', body: strategyOf(plan, workerId) }, Date.now());
    return;
  }
  run.finish('incomplete');
  run.missing = [`STRATEGY: not written: ${verdict.reason}`];
}

async function askForPlan(
  given: GivenLists & { model?: string | undefined },
  count: (response: ModelResponse) => void,
): Promise<PlanVerdict> {
  const messages: Message[] = [{ role: 'user', content: planPrompt(given) }];
  let verdict: PlanVerdict = { ok: false, reason: 'no plan' };
  for (let attempt = 1; attempt <= PLAN_ATTEMPTS; attempt++) {
    let response;
    try {
      response = await callModelThroughList(callModel, planRequest(messages, given.model));
    } catch (error) {
      // Retries are spent (or the error is not retryable): the run ends without a plan rather than failing.
      return { ok: false, reason: `the supervisor's model failed: ${failureMessage(error).slice(0, 1000)}` };
    }
    count(response);
    verdict = planFromResponse(response, given);
    if (verdict.ok) return verdict;
    messages.push({ role: 'assistant', content: replySummary(response) });
    messages.push({ role: 'user', content: planCorrection(verdict.reason) });
  }
  return { ok: false, reason: `the supervisor's plan was refused ${PLAN_ATTEMPTS} times; last: ${verdict.reason}` };
}
