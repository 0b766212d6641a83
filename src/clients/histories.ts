import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { type AgentInput, type AgentSettings, AgentSettingsSchema } from '../core/agent/agent';
import type { CycleResult } from '../core/cycle/input';
import type { ParsedAgentCycleInput as ParsedCycleInput } from '../core/agent/cycle-input';

/** A workflow's event history as the server returns it. */
export type History = temporal.api.history.v1.IHistory;

/** The history of any workflow execution: the latest run of `workflowId`, or the run `runId` names. */
export function fetchHistory(client: Client, workflowId: string, runId?: string): Promise<History> {
  return client.workflow.getHandle(workflowId, runId).fetchHistory();
}

/** A cycle's states as its history records them; `result` is absent while the cycle has not completed. */
export interface CycleStates {
  input: ParsedCycleInput;
  result?: CycleResult;
  startTime?: Date;
}

/** The before-state (WorkflowExecutionStarted input) and the result (WorkflowExecutionCompleted) of a cycle. */
export function cycleStatesFromHistory(history: History): CycleStates {
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  if (!payload) throw new Error('history has no WorkflowExecutionStarted input');
  const input = defaultPayloadConverter.fromPayload<ParsedCycleInput>(payload);
  const completed = events.find((event) => event.workflowExecutionCompletedEventAttributes)
    ?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  const seconds = events[0]?.eventTime?.seconds;
  return {
    input,
    result: completed ? defaultPayloadConverter.fromPayload<CycleResult>(completed) : undefined,
    startTime: seconds !== undefined && seconds !== null ? new Date(Number(seconds) * 1000) : undefined,
  };
}

/**
 * {@link cycleStatesFromHistory} for a history as the server returns it: payloads decoded with the client's data
 * converter first, so a setup with an encryption codec reads its cycles too.
 */
export async function decodedCycleStatesFromHistory(client: Client, history: History): Promise<CycleStates> {
  const converter = client.options.loadedDataConverter;
  const decode = async (payloads: temporal.api.common.v1.IPayloads | null | undefined) =>
    payloads?.payloads?.length ? [await decodeFromPayloadsAtIndex<unknown>(converter, 0, payloads.payloads)] : [];
  const events = history.events ?? [];
  const input = await decode(events[0]?.workflowExecutionStartedEventAttributes?.input);
  if (input.length === 0) throw new Error('history has no WorkflowExecutionStarted input');
  const completedEvent = events.find((event) => event.workflowExecutionCompletedEventAttributes);
  const result = await decode(completedEvent?.workflowExecutionCompletedEventAttributes?.result);
  const seconds = events[0]?.eventTime?.seconds;
  return {
    input: input[0] as ParsedCycleInput,
    result: result[0] as CycleResult | undefined,
    startTime: seconds !== undefined && seconds !== null ? new Date(Number(seconds) * 1000) : undefined,
  };
}

function payloadValue<T>(payloads: temporal.api.common.v1.IPayloads | null | undefined): T | undefined {
  const payload = payloads?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<T>(payload) : undefined;
}

/**
 * An agent's settings as the run whose history this is left them: those it started with, or the answer of the last
 * `configure` update it accepted and completed.
 */
export function agentSettingsFromHistory(history: History): AgentSettings {
  const events = history.events ?? [];
  const input = payloadValue<AgentInput>(events[0]?.workflowExecutionStartedEventAttributes?.input);
  let settings = AgentSettingsSchema().parse(input?.settings ?? {});
  const configures = new Set<string>();
  for (const event of events) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (accepted?.input?.name === 'configure' && accepted.meta?.updateId) configures.add(accepted.meta.updateId);
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (!completed?.meta?.updateId || !configures.has(completed.meta.updateId)) continue;
    const answer = AgentSettingsSchema().safeParse(payloadValue(completed.outcome?.success));
    if (answer.success) settings = answer.data;
  }
  return settings;
}
