import * as os from 'node:os';
import {
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { agentWorkflowId, validateAgentId } from '../common/ids';
import { agentIdKey } from '../common/search-attributes';
import { approvalsQuery, decideUpdate } from '../common/messages/agent';
import { cycleApprovalsQuery, cycleDecideUpdate } from '../common/messages/cycle';
import { z } from 'zod';
import { type Decision, type DecisionArgs, type PendingApproval, PendingApprovalSchema } from '../core/tools/approval';
import { listExecutions, visibilityString } from './visibility';
import { isCycleType } from '../common/workflow-types';

/** A tool call waiting for a decision, with where to send it. */
export interface PendingCall extends PendingApproval {
  /** The agent the call works for (its own cycle, or a stage of its staged run); absent for a research worker. */
  agentId?: string;
  /** What {@link Approvals.decide} takes for this call: the agent id, or the waiting cycle's workflow id. */
  target: string;
}

/** How long a workflow gets to answer the `approvals` query: long enough for a worker under load. */
const QUERY_MS = 30_000;

/** The agent id a target names, or undefined when it names a workflow (a cycle no agent runs). */
export function targetAgentId(target: string): string | undefined {
  return validateAgentId(target) === undefined ? target : undefined;
}

/** The Temporal CLI's name for the user running this process: who decides when no one is named. */
export function defaultDecider(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    // No passwd entry for this uid (some containers).
    return process.env.USER ?? 'unknown';
  }
}

/**
 * Durable approvals from outside the workflows: lists the calls every agent, research worker and stage waits on
 * (found through visibility by the `AwaitingApproval` search attribute) and decides them through the agent's
 * `decide` update, or the cycle's for a cycle no agent runs.
 */
export class Approvals {
  constructor(readonly client: Client) {}

  /**
   * Every pending call; with `agentId`, that agent's (its cycles', sub-agents' and stages'). The agent named is asked
   * (a query: a worker must answer, and the answer is current). Every other waiting workflow is read from the memo
   * visibility lists with it, which the workflow sets with the search attribute, so listing needs no worker; one
   * whose memo says nothing is asked, and left out when it does not answer. An agent mirrors its whole tree of
   * cycles, so the calls of an agent's cycles are listed once, to be decided through the agent.
   */
  async list(agentId?: string): Promise<PendingCall[]> {
    const filter = agentId === undefined ? '' : ` AND AgentId = ${visibilityString(agentId)}`;
    const query = `AwaitingApproval = true AND ExecutionStatus = 'Running'${filter}`;
    const executions: WorkflowExecutionInfo[] = await listExecutions(this.client, query);
    const calls: PendingCall[] = [];
    const seen = new Set<string>();
    const add = (found: PendingCall[]) => {
      for (const call of found) {
        const key = `${call.cycleId}\n${call.callId}`;
        if (!seen.has(key)) calls.push(call);
        seen.add(key);
      }
    };
    const answered = new Set<string>();
    if (agentId !== undefined) {
      // An agent that never started may still have staged runs waiting.
      const own = await this.pending(agentId).catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      });
      if (own) answered.add(agentWorkflowId(agentId));
      add(own ?? []);
    }
    const byId = (a: WorkflowExecutionInfo, b: WorkflowExecutionInfo) => a.workflowId.localeCompare(b.workflowId);
    for (const execution of executions.filter((found) => found.type === 'agent').sort(byId)) {
      const agent = agentOf(execution);
      if (agent === undefined || answered.has(execution.workflowId)) continue;
      const found = memoCalls(execution) ?? (await this.pending(agent).catch(() => undefined));
      if (found) answered.add(execution.workflowId);
      add((found ?? []).map((call) => ({ ...call, agentId: agent, target: agent })));
    }
    for (const cycle of executions.filter((found) => isCycleType(found.type)).sort(byId)) {
      const root = cycle.rootExecution?.workflowId ?? cycle.parentExecution?.workflowId ?? undefined;
      if (root !== undefined && answered.has(root)) continue;
      const rootAgent = root === undefined ? undefined : agentOf({ type: 'agent', workflowId: root });
      const owner = rootAgent ?? targetAgentId(cycle.typedSearchAttributes.get(agentIdKey) ?? '');
      const found = memoCalls(cycle) ?? (await this.pending(cycle.workflowId).catch(() => []));
      add(
        found.map((call) => ({
          ...call,
          ...(owner !== undefined && { agentId: owner }),
          // Through the agent when one runs the cycle, as its `decide` forwards to the cycle.
          target: rootAgent ?? cycle.workflowId,
        })),
      );
    }
    return calls;
  }

  /** The calls one target waits on: an agent (by id) or a cycle no agent runs (by workflow id); a query. */
  async pending(target: string): Promise<PendingCall[]> {
    const agentId = targetAgentId(target);
    const found = await this.client.withDeadline(Date.now() + QUERY_MS, () =>
      agentId === undefined
        ? this.handle(target).query(cycleApprovalsQuery)
        : this.handle(agentWorkflowId(agentId)).query(approvalsQuery),
    );
    return found.map((call) => ({ ...call, ...(agentId !== undefined && { agentId }), target }));
  }

  /**
   * Approves (optionally with edited arguments) or denies a call of `target`, recording `args.by`, or the OS user
   * when none is given. Rejects with the workflow's reason when the call is unknown, decided already, or the edited
   * arguments do not fit the tool's schema.
   */
  decide(target: string, args: DecisionArgs): Promise<Decision> {
    const agentId = targetAgentId(target);
    const decision: DecisionArgs = { ...args, by: args.by ?? defaultDecider() };
    return agentId === undefined
      ? this.handle(target).executeUpdate(cycleDecideUpdate, { args: [decision] })
      : this.handle(agentWorkflowId(agentId)).executeUpdate(decideUpdate, { args: [decision] });
  }

  private handle(workflowId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId);
  }
}

/** The agent id of an agent workflow as visibility lists it. */
function agentOf(execution: Pick<WorkflowExecutionInfo, 'type' | 'workflowId'>): string | undefined {
  if (execution.type !== 'agent') return undefined;
  const agentId = execution.workflowId.startsWith('agent/') ? execution.workflowId.slice('agent/'.length) : '';
  return validateAgentId(agentId) === undefined ? agentId : undefined;
}

/** The calls a workflow's memo says it waits on (set with its search attribute); undefined when it says nothing. */
function memoCalls(execution: WorkflowExecutionInfo): PendingApproval[] | undefined {
  const parsed = z.array(PendingApprovalSchema()).safeParse(execution.memo?.approvals);
  return parsed.success ? parsed.data : undefined;
}
