import { getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import { type ReplyArgs, ReplyArgsSchema } from '../../core/agent/reply';
import { payloadRefusal } from '../../core/payload';
import { agentWorkflowId } from '../../common/ids';
import { replySignal } from '../../common/messages/agent';
import { parsedOrDropped } from '../../common/parse-or-drop';
import type { ReadyReply } from '../cycle/tool-handler';

/**
 * Hands a chat cycle's reply to the agent that started it, so its `send` answers now rather than after reflect
 * (design.md, The reply first). A bare cycle has no agent to tell; a reply too large to signal reaches `send` with
 * the cycle's result.
 */
export function replyFirst(agentId: string): (ready: ReadyReply) => void {
  return (ready) => {
    const parent = workflowInfo().parent;
    if (parent?.workflowId !== agentWorkflowId(agentId) || payloadRefusal(ready, 'the reply') !== null) return;
    // Not awaited: reflect's model call goes out in the same workflow task. A parent gone meanwhile changes nothing.
    void getExternalWorkflowHandle(parent.workflowId, parent.runId)
      .signal(replySignal, ready)
      .catch(() => undefined);
  };
}

/**
 * The `reply` signal's reply when it is well formed, within the payload budget (the `send` result carries it) and
 * from the cycle that runs now; otherwise undefined, dropped. One from an earlier cycle, arriving after that cycle's
 * result, is dropped quietly: its `send` had its answer from the result already.
 */
export function replyOrDropped(raw: unknown, runningCycleId: string | undefined): ReplyArgs | undefined {
  const args = parsedOrDropped(ReplyArgsSchema(), raw, 'reply');
  if (!args || args.cycleId !== runningCycleId) return undefined;
  const refusal = payloadRefusal(args, 'the reply');
  if (refusal) log.warn(`dropped a reply signal: ${refusal}`);
  return refusal ? undefined : args;
}
