import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

/** Where a reply's time went, in milliseconds, from the agent's and the cycle's histories. */
export interface ReplyPath {
  /** The agent takes the `send` update and starts the cycle; the cycle starts. */
  startCycle: number;
  /** The cycle's first workflow task (observation GC, the tool list) until the respond call is scheduled. */
  firstTask: number;
  /** The respond model call, scheduled to completed. */
  respond: number;
  /** The cycle's workflow task after respond, until the `reply` signal goes out. */
  signal: number;
  /** The signal reaching the agent, and the agent completing the update. */
  answer: number;
  /** The rest: the client's requests (describe, update-with-start, its result) and their way back. */
  client: number;
}

export const REPLY_PATH_LABELS: Record<keyof ReplyPath, string> = {
  startCycle: 'agent takes send, starts the cycle',
  firstTask: "cycle's first task (observation GC, tool list)",
  respond: 'respond model call, scheduled → completed',
  signal: 'cycle task after respond → reply signal',
  answer: 'signal → agent completes the update',
  client: 'client requests and their way back',
};

function ms(event: Event | undefined): number {
  const time = event?.eventTime;
  if (!time) throw new Error('an event of the reply path is missing from history');
  return Number(time.seconds ?? 0) * 1000 + (time.nanos ?? 0) / 1e6;
}

async function events(client: Client, workflowId: string): Promise<Event[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/**
 * The reply path of turn `index` (0-based, counting every `send` the agent took in this run) whose cycle is `cycleId`
 * and which the client saw take `totalMs`.
 */
export async function replyPath(
  client: Client,
  agentWorkflowId: string,
  cycleId: string,
  index: number,
  totalMs: number,
): Promise<ReplyPath> {
  const agent = await events(client, agentWorkflowId);
  const sends = agent.filter(
    (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'send',
  );
  const accepted = sends[index];
  const updateId = accepted?.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
  const completed = agent.find(
    (event) => event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === updateId,
  );
  const cycle = await events(client, cycleId);
  const scheduled = cycle.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
  );
  const respondDone = cycle.find(
    (event) =>
      event.activityTaskCompletedEventAttributes &&
      Number(event.activityTaskCompletedEventAttributes.scheduledEventId) === Number(scheduled?.eventId),
  );
  const signal = cycle.find((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes);
  const server = ms(completed) - ms(accepted);
  return {
    startCycle: ms(cycle[0]) - ms(accepted),
    firstTask: ms(scheduled) - ms(cycle[0]),
    respond: ms(respondDone) - ms(scheduled),
    signal: ms(signal) - ms(respondDone),
    answer: ms(completed) - ms(signal),
    client: totalMs - server,
  };
}
