import type { Approvals, PendingCall } from '../clients/approvals';
import type { DecisionArgs } from '../core/tools/approval';
import { errorMessage } from '../common/error-message';
import { callText, parseAnswer } from './approval-calls';
import { parseJsonObject } from './options';

/** How often chat asks the agent which calls its turn waits on. */
const POLL_MS = 500;

/**
 * The prompt's side of the conversation: ask a question and read one line; undefined once input has ended, or once
 * the turn the question is about has.
 */
export interface Prompter {
  ask(question: string): Promise<string | undefined>;
  say(text: string): void;
}

/**
 * The decision for one call, asked at the prompt: y approves, N or Enter denies, e reads edited arguments as one
 * line of JSON. Undefined when input ends first: the call keeps waiting for a decision made elsewhere.
 */
async function askDecision(call: PendingCall, prompter: Prompter): Promise<DecisionArgs | undefined> {
  for (;;) {
    const answer = await prompter.ask(`run ${callText(call)}? [y/N/e(dit)] `);
    if (answer === undefined) return undefined;
    const choice = parseAnswer(answer);
    if (choice === 'approve') return { callId: call.callId, decision: 'approve' };
    if (choice === 'deny') return { callId: call.callId, decision: 'deny', reason: 'denied in chat' };
    if (choice === undefined) {
      prompter.say('Answer y (run it), n or Enter (deny it), or e (edit its arguments).');
      continue;
    }
    prompter.say(`Arguments as given: ${call.args}`);
    const edited = await prompter.ask('arguments (one line of JSON)> ');
    if (edited === undefined) return undefined;
    try {
      return { callId: call.callId, decision: 'approve', args: parseJsonObject(edited) };
    } catch (error) {
      prompter.say(errorMessage(error));
    }
  }
}

/**
 * While a chat turn runs (`turn`), asks the person about every call the agent waits on, one at a time, and sends
 * each decision. Resolves `'settled'` once the turn has, or `'left'` when input ended with a call still waiting.
 */
export async function watchApprovals(
  approvals: Approvals,
  agentId: string,
  turn: Promise<unknown>,
  prompter: Prompter,
  /** Ends the calls to the server: one no worker answers would otherwise keep the process alive. */
  signal?: AbortSignal,
): Promise<'settled' | 'left'> {
  // A signal of its own for each call: the client adds a listener per call to the signal it is given, and keeps it.
  const within = <T>(call: () => Promise<T>) =>
    signal ? approvals.client.withAbortSignal(AbortSignal.any([signal]), call) : call();
  let settled = false;
  const done = turn.then(
    () => (settled = true),
    () => (settled = true),
  );
  const answered = new Set<string>();
  while (!settled) {
    // A query no worker answers would wait on: the turn's end (a refusal for want of a worker, say) ends the wait.
    const waiting = await Promise.race([within(() => approvals.pending(agentId)).catch(() => []), done.then(() => [])]);
    for (const call of waiting) {
      const key = `${call.cycleId}\n${call.callId}`;
      if (settled || answered.has(key)) continue;
      const decision = await askDecision(call, prompter);
      // The turn ended while its question waited (cancelled, or decided elsewhere): nothing is left to ask.
      if (decision === undefined && settled) break;
      if (decision === undefined) {
        prompter.say(`\n(call ${call.callId} still waits: scratchpad approve ${agentId} ${call.callId}, or deny)`);
        return 'left';
      }
      try {
        await within(() => approvals.decide(call.target, decision));
        answered.add(key);
      } catch (error) {
        // Decided elsewhere meanwhile, or edited arguments the tool refuses: say why; a refused edit is asked again.
        const cause = (error as { cause?: unknown }).cause;
        prompter.say(`(not applied: ${errorMessage(cause ?? error).replace(/\s*\n\s*/g, ' ')})`);
      }
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, POLL_MS)))]);
    clearTimeout(timer);
  }
  return 'settled';
}
