import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Events and protobuf-encoded bytes of (part of) a workflow history. */
export interface HistorySize {
  events: number;
  bytes: number;
}

/** The agent workflow's history: each run, each turn's share, and the continue-as-new events. */
export interface AgentHistory {
  runs: (HistorySize & { runId: string })[];
  /** From the acceptance of a turn's `send` update to the next acceptance, in turn order across runs. */
  perTurn: HistorySize[];
  /** The `WorkflowExecutionContinuedAsNew` events, counted apart: they carry the memory into the next run. */
  continueAsNew: HistorySize;
}

function sizeOfEvents(events: readonly HistoryEvent[]): HistorySize {
  return {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode({ events: [...events] }).finish().length,
  };
}

async function fetchEvents(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

/** The size of a workflow's history, as `temporal.api.history.v1.History.encode(history)` counts it. */
export async function historySize(client: Client, workflowId: string): Promise<HistorySize> {
  return sizeOfEvents(await fetchEvents(client, workflowId));
}

/** Every run of a workflow from `firstRunId` on, following continue-as-new. */
async function runHistories(client: Client, workflowId: string, firstRunId: string) {
  const runs: { runId: string; events: HistoryEvent[] }[] = [];
  for (let runId: string | null | undefined = firstRunId; runId;) {
    const events = await fetchEvents(client, workflowId, runId);
    runs.push({ runId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return runs;
}

/** Splits a run at each accepted update; events before the first belong to no turn. */
function turnsOf(events: readonly HistoryEvent[]): HistoryEvent[][] {
  const turns: HistoryEvent[][] = [];
  for (const event of events) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) turns.push([]);
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) continue;
    turns.at(-1)?.push(event);
  }
  return turns;
}

/** Fetches every run of the agent workflow and measures it per run and per chat turn. */
export async function agentHistory(client: Client, workflowId: string, firstRunId: string): Promise<AgentHistory> {
  const runs = await runHistories(client, workflowId, firstRunId);
  const continuedAsNew = runs.flatMap((run) =>
    run.events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW),
  );
  return {
    runs: runs.map((run) => ({ runId: run.runId, ...sizeOfEvents(run.events) })),
    perTurn: runs.flatMap((run) => turnsOf(run.events).map(sizeOfEvents)),
    continueAsNew: sizeOfEvents(continuedAsNew),
  };
}
