import { log } from '@temporalio/workflow';
import { type ReplyArgs, ReplyArgsSchema } from '../../core/agent/reply';
import { payloadRefusal } from '../../core/payload';
import { signalArgs } from '../../common/signal-args';

/**
 * The `reply` signal's reply when it is well formed, within the payload budget (the `send` result carries it) and
 * from the cycle that runs now; otherwise undefined. One from an earlier cycle, arriving after that cycle's result,
 * is dropped quietly: its `send` had its answer from the result already.
 */
export function replyOf(raw: unknown, runningCycleId: string | undefined): ReplyArgs | undefined {
  const args = signalArgs(ReplyArgsSchema(), raw, 'reply');
  if (!args || args.cycleId !== runningCycleId) return undefined;
  const refusal = payloadRefusal(args, 'the reply');
  if (refusal) log.warn(`dropped a reply signal: ${refusal}`);
  return refusal ? undefined : args;
}
