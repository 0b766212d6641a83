import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Where a workflow's wall time went, summed over its tasks, from the server's event timestamps. */
export interface PhaseTimes {
  /** Workflow task scheduled → picked up by the worker. */
  workflowTaskWaitMs: number;
  /** Workflow task picked up → completed (worker round trip and workflow code). */
  workflowTaskRunMs: number;
  /** Activity scheduled → picked up by the worker. */
  activityWaitMs: number;
  /** Activity picked up → completed. */
  activityRunMs: number;
}

/** Size of one workflow's history and the time its tasks spent waiting and running. */
export interface HistoryStats {
  events: number;
  /** Bytes of the protobuf-encoded history. */
  bytes: number;
  workflowTasks: number;
  /** Encoded bytes per event type, e.g. `ACTIVITY_TASK_SCHEDULED`. */
  bytesByEventType: Record<string, number>;
  phases: PhaseTimes;
}

function eventTypeName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  return (EventType[type ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
}

function bytesByEventType(events: readonly HistoryEvent[]): Record<string, number> {
  const bytes: Record<string, number> = {};
  for (const event of events) {
    const name = eventTypeName(event.eventType);
    bytes[name] = (bytes[name] ?? 0) + temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  }
  return bytes;
}

function phaseTimes(events: readonly HistoryEvent[]): PhaseTimes {
  const times = new Map(events.map((event) => [String(event.eventId), tsToMs(event.eventTime)]));
  const since = (eventId: unknown, event: HistoryEvent) =>
    tsToMs(event.eventTime) - (times.get(String(eventId)) ?? NaN);
  const phases: PhaseTimes = { workflowTaskWaitMs: 0, workflowTaskRunMs: 0, activityWaitMs: 0, activityRunMs: 0 };
  for (const event of events) {
    const { workflowTaskStartedEventAttributes: wftStarted, workflowTaskCompletedEventAttributes: wftCompleted } =
      event;
    const { activityTaskStartedEventAttributes: started, activityTaskCompletedEventAttributes: completed } = event;
    if (wftStarted) phases.workflowTaskWaitMs += since(wftStarted.scheduledEventId, event);
    if (wftCompleted) phases.workflowTaskRunMs += since(wftCompleted.startedEventId, event);
    if (started) phases.activityWaitMs += since(started.scheduledEventId, event);
    if (completed) phases.activityRunMs += since(completed.startedEventId, event);
  }
  return phases;
}

/** Fetches a workflow's history and measures it. */
export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    workflowTasks: events.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length,
    bytesByEventType: bytesByEventType(events),
    phases: phaseTimes(events),
  };
}
