import {
  ApplicationFailure,
  type ChildWorkflowHandle,
  ParentClosePolicy,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import type { CycleInput, CycleResult } from '../../core/cycle/input';
import { payloadRefusal } from '../../core/payload';
import { headCodePoints } from '../../core/text';
import { CycleError } from '../../common/failure-types';
import { failureMessage } from '../../common/failure';
import { agentIdKey } from '../../common/search-attributes';
import type { AgentCycleWorkflow } from '../../common/workflow-types';
import { askedDetails } from './cycle-details';

/**
 * The one way a workflow starts an `agentCycle` child: an agent's cycle, a sub-agent, a research investigation, a
 * stage. By name, so the starter's module graph stays without the cycle's (workflows/index.ts); ended with its
 * parent; found by its agent's id in visibility; summarised in the Web UI, with what it was asked as its details.
 */
export async function startCycleChild(
  input: CycleInput & { cycleId: string },
  summary: string,
): Promise<ChildWorkflowHandle<AgentCycleWorkflow>> {
  // Past the budget the server would terminate the child at its start, and its starter would never hear why.
  const refusal = payloadRefusal(input, 'the cycle input');
  if (refusal) throw ApplicationFailure.nonRetryable(refusal, CycleError.BadInput);
  return startChild<AgentCycleWorkflow>('agentCycle', {
    workflowId: input.cycleId,
    args: [input],
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    typedSearchAttributes: [{ key: agentIdKey, value: input.agentId }],
    staticSummary: headCodePoints(summary, 120),
    // What it was asked, readable in the Web UI with no worker running (its memo says what became of it).
    staticDetails: askedDetails(input),
  });
}

/** Runs a child cycle to its result; one that could not start or run is its error message, never a throw. */
export async function runCycleChild(
  input: CycleInput & { cycleId: string },
  summary: string,
): Promise<{ result: CycleResult } | { error: string }> {
  try {
    const handle = await startCycleChild(input, summary);
    return { result: await handle.result() };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { error: failureMessage(error) };
  }
}
