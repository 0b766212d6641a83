import type { Client, WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { z } from 'zod';
import type { AgentInput, AgentSettings, AgentStatus } from '../core/agent/agent';
import { type Origin, OriginSchema } from '../core/agent/time-travel';
import { type Scratchpad, ScratchpadSchema, defaultScratchpad } from '../core/scratchpad/scratchpad';
import { type PendingApproval, PendingApprovalSchema } from '../core/tools/approval';
import { agentWorkflowId, parseCycleWorkflowId, validateAgentId } from '../common/ids';
import { agentIdKey, cycleCountKey, lastOutcomeKey } from '../common/search-attributes';
import { describeAgent } from './agent-start';
import { agentSettingsFromHistory, fetchHistory } from './histories';
import { listExecutions, visibilityString } from './visibility';

/** What the agent workflow keeps in its memo (workflows/agent: `persist` and the approvals mirror), checked. */
export interface AgentMemo {
  scratchpad?: Scratchpad;
  /** The `status` query's answer as of the agent's last change; absent on agents whose worker predates it. */
  status?: AgentStatus;
  origin?: Origin;
  approvals?: PendingApproval[];
}

/** An agent as the server shows it with no worker: memo, search attributes and visibility. */
export interface AgentOverview {
  agentId: string;
  /** How the agent workflow's latest run stands: `RUNNING`, or how it closed (`TERMINATED`, ...). */
  state: string;
  taskQueue: string;
  cycleCount: number;
  lastOutcome?: string;
  /** The latest of: the run's start or close, the scratchpad's last change; now while a cycle runs. */
  lastActive: Date;
  /** The agent's cycles that run now, by workflow id (visibility: the memo's `running` may be stale). */
  running: string[];
  /** Calls of the agent's workflows that wait for a person, from their memos. */
  approvals: PendingApproval[];
  memo: AgentMemo;
}

/** The agent workflow's memo, each part kept only when it has the shape the agent writes. */
export function agentMemo(raw: Record<string, unknown> | undefined): AgentMemo {
  const memo: AgentMemo = {};
  const scratchpad = ScratchpadSchema().safeParse(raw?.scratchpad);
  if (scratchpad.success) memo.scratchpad = scratchpad.data;
  const status = raw?.status as Partial<AgentStatus> | undefined;
  if (status && typeof status.cycleCount === 'number' && status.settings && typeof status.settings === 'object') {
    memo.status = status as AgentStatus;
  }
  const origin = OriginSchema().safeParse(raw?.origin);
  if (origin.success) memo.origin = origin.data;
  const approvals = z.array(PendingApprovalSchema()).safeParse(raw?.approvals);
  if (approvals.success) memo.approvals = approvals.data;
  return memo;
}

/** Every execution a visibility query lists. */
function listAll(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  return listExecutions(client, query);
}

/** Running cycles of agents (not sub-agents' or stages'), by agent id; of one agent when `agentId` is given. */
async function runningCycles(client: Client, agentId?: string): Promise<Map<string, string[]>> {
  const filter = agentId === undefined ? '' : ` AND AgentId = ${visibilityString(agentId)}`;
  const query = `WorkflowType = 'agentCycle' AND ExecutionStatus = 'Running'${filter}`;
  const byAgent = new Map<string, string[]>();
  for (const cycle of await listAll(client, query)) {
    const parsed = parseCycleWorkflowId(cycle.workflowId);
    if (!parsed || (agentId !== undefined && parsed.agentId !== agentId)) continue;
    byAgent.set(parsed.agentId, [...(byAgent.get(parsed.agentId) ?? []), cycle.workflowId].sort());
  }
  return byAgent;
}

/** Waiting calls by agent id, from the memos of the workflows that wait (the agent mirrors its cycles' calls). */
async function waitingCalls(client: Client, agentId?: string): Promise<Map<string, PendingApproval[]>> {
  const filter = agentId === undefined ? '' : ` AND AgentId = ${visibilityString(agentId)}`;
  const query = `AwaitingApproval = true AND ExecutionStatus = 'Running'${filter}`;
  const byAgent = new Map<string, PendingApproval[]>();
  const seen = new Set<string>();
  for (const execution of await listAll(client, query)) {
    const owner = execution.typedSearchAttributes.get(agentIdKey);
    if (owner === undefined) continue;
    for (const call of agentMemo(execution.memo).approvals ?? []) {
      const key = `${call.cycleId}\n${call.callId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      byAgent.set(owner, [...(byAgent.get(owner) ?? []), call]);
    }
  }
  return byAgent;
}

type AgentExecution = Pick<
  WorkflowExecutionInfo,
  'workflowId' | 'status' | 'taskQueue' | 'startTime' | 'closeTime' | 'memo' | 'typedSearchAttributes'
>;

function overviewOf(
  agentId: string,
  execution: AgentExecution,
  running: string[],
  approvals: PendingApproval[],
): AgentOverview {
  const memo = agentMemo(execution.memo);
  const times = [execution.startTime, execution.closeTime, running.length > 0 ? new Date() : undefined];
  const stamp = memo.scratchpad?.last_updated ? new Date(memo.scratchpad.last_updated) : undefined;
  if (stamp && !Number.isNaN(stamp.getTime())) times.push(stamp);
  const lastActive = new Date(Math.max(...times.filter((time): time is Date => time !== undefined).map(Number)));
  return {
    agentId,
    state: execution.status.name,
    taskQueue: execution.taskQueue,
    cycleCount: memo.status?.cycleCount ?? execution.typedSearchAttributes.get(cycleCountKey) ?? 0,
    ...(execution.typedSearchAttributes.get(lastOutcomeKey) !== undefined && {
      lastOutcome: execution.typedSearchAttributes.get(lastOutcomeKey),
    }),
    lastActive,
    running,
    approvals,
    memo,
  };
}

/** One agent with no worker; undefined when its agent workflow was never started. */
export async function readAgent(
  client: Client,
  agentId: string,
  description?: WorkflowExecutionDescription,
): Promise<AgentOverview | undefined> {
  const found = description ?? (await describeAgent(client, agentId));
  if (!found) return undefined;
  const [running, approvals] = await Promise.all([runningCycles(client, agentId), waitingCalls(client, agentId)]);
  return overviewOf(agentId, found, running.get(agentId) ?? [], approvals.get(agentId) ?? []);
}

/** Every agent of the namespace, the most recently active first. */
export async function listAgents(client: Client): Promise<AgentOverview[]> {
  const query = `WorkflowType = 'agent' AND ExecutionStatus != 'ContinuedAsNew'`;
  const [executions, running, approvals] = await Promise.all([
    listAll(client, query),
    runningCycles(client),
    waitingCalls(client),
  ]);
  // A closed agent started again has two runs: the newest speaks for it.
  const newest = new Map<string, WorkflowExecutionInfo>();
  for (const execution of executions) {
    const agentId = execution.workflowId.slice('agent/'.length);
    if (execution.workflowId !== agentWorkflowId(agentId) || validateAgentId(agentId) !== undefined) continue;
    const known = newest.get(agentId);
    if (!known || known.startTime < execution.startTime) newest.set(agentId, execution);
  }
  return [...newest]
    .map(([agentId, execution]) =>
      overviewOf(agentId, execution, running.get(agentId) ?? [], approvals.get(agentId) ?? []),
    )
    .sort((a, b) => b.lastActive.getTime() - a.lastActive.getTime() || a.agentId.localeCompare(b.agentId));
}

/** An agent's memory and settings as a reader with no worker finds them. */
export interface AgentMemory {
  scratchpad: Scratchpad;
  settings: AgentSettings;
  origin?: Origin;
}

/**
 * The agent's memory and settings with no worker: from its memo; for an agent whose memo lacks them (no worker has
 * run it yet, as after a fork, or one that predates the status memo), from what its latest run started with and the
 * `configure` updates its history records.
 */
export async function agentMemory(
  client: Client,
  overview: Pick<AgentOverview, 'agentId' | 'memo'>,
): Promise<AgentMemory> {
  const { memo } = overview;
  const origin = memo.origin ?? memo.status?.origin;
  if (memo.scratchpad && memo.status) {
    return { scratchpad: memo.scratchpad, settings: memo.status.settings, ...(origin && { origin }) };
  }
  const history = await fetchHistory(client, agentWorkflowId(overview.agentId));
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = payload ? defaultPayloadConverter.fromPayload<AgentInput>(payload) : undefined;
  const started = ScratchpadSchema().safeParse(input?.scratchpad);
  const scratchpad = memo.scratchpad ?? (started.success ? started.data : defaultScratchpad(input?.purpose));
  const from = origin ?? (OriginSchema().safeParse(input?.origin).data as Origin | undefined);
  return { scratchpad, settings: agentSettingsFromHistory(history), ...(from && { origin: from }) };
}

/** Whether any workflow carries the agent's id (a staged run, say), though it may have no agent workflow. */
export async function hasAgentWorkflows(client: Client, agentId: string): Promise<boolean> {
  const { count } = await client.workflow.count(`AgentId = ${visibilityString(agentId)}`);
  return count > 0;
}
