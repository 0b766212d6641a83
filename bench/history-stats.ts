import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;

/** Size of one workflow's history. */
export interface HistoryStats {
  events: number;
  /** Bytes of the protobuf-encoded history. */
  bytes: number;
  workflowTasks: number;
  /** Encoded bytes per event type, e.g. `ACTIVITY_TASK_SCHEDULED`. */
  bytesByEventType: Record<string, number>;
}

function eventTypeName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  return (EventType[type ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
}

/** Fetches a workflow's history and measures it. */
export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const bytesByEventType: Record<string, number> = {};
  for (const event of events) {
    const name = eventTypeName(event.eventType);
    bytesByEventType[name] =
      (bytesByEventType[name] ?? 0) + temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  }
  return {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    workflowTasks: events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length,
    bytesByEventType,
  };
}
