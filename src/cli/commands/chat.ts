import * as readline from 'node:readline';
import { type AgentTarget, Agents } from '../../clients/agents';
import { Approvals } from '../../clients/approvals';
import type { SendResult } from '../../core/agent/agent';
import { renderMarkdown } from '../../core/scratchpad/render';
import { errorMessage } from '../../common/error-message';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { agentContext, onAgentQueue } from '../agent-access';
import { type Prompter, watchApprovals } from '../chat-approvals';
import { defineCommand } from '../command';
import { WORKER_MODEL } from '../options';
import { adoptedCycle, turnNotices } from '../turns';
import { agentWorkflowId } from '../../common/ids';
import { AgentFollower, agentMark } from '../follow';
import { type TurnOutput, memoryLineOf, memoryUpdatedLine, printTurn } from '../turn-printer';

/** A streamed reply on stdout, with its tool calls beside it, as the conversation reads. */
const chatOutput: TurnOutput = {
  text: (text) => process.stdout.write(text),
  line: (line) => process.stdout.write(`${line}\n`),
};

const HELP =
  'Type a message and press Enter. /scratchpad shows the scratchpad, /directive TEXT sends a directive, /quit leaves. ' +
  'A tool call that needs your approval is asked about inline. Ctrl-C cancels a turn; at the prompt it leaves.';

/** How long leaving waits for the agent to adopt the last turn (the memory's update), at most. */
const LEAVING_WAIT_MS = 30_000;

/** How often a cancelled turn asks the agent which cycle runs, until its own has started. */
const CANCEL_POLL_MS = 100;

/**
 * Ctrl-C in chat: the first during a turn cancels it, another (or one at the prompt) leaves. Readline in a terminal
 * reads Ctrl-C as a key and calls this, with no signal sent, so an in-process worker keeps serving the cancellation.
 */
class Interrupts {
  private turn?: { cancel: () => void; cancelled: boolean };
  private leave: () => void = () => undefined;
  /** Resolves once the person has asked to leave. */
  readonly left = new Promise<'left'>((resolve) => (this.leave = () => resolve('left')));

  constructor(private readonly lines: readline.Interface) {
    lines.on('SIGINT', () => this.press());
  }

  /** `cancel` is what the first Ctrl-C does until `work` settles. */
  async during<T>(work: Promise<T>, cancel: () => void): Promise<T> {
    const turn = { cancel, cancelled: false };
    this.turn = turn;
    try {
      return await work;
    } finally {
      if (this.turn === turn) this.turn = undefined;
    }
  }

  private press(): void {
    const { turn } = this;
    if (turn && !turn.cancelled) {
      turn.cancelled = true;
      process.stdout.write('\n(cancelling the turn…)\n');
      turn.cancel();
      return;
    }
    process.stdout.write('\n');
    this.leave();
    this.lines.close();
  }
}

/**
 * What a finished turn prints: the reply when there is one (unless the stream printed it already), and one line on
 * any outcome but `completed`.
 */
function turnText(result: SendResult, printed: boolean): string {
  const reply = result.reply.trim() === '' || printed ? '' : `agent> ${result.reply}\n`;
  if (result.outcome === 'completed') return reply;
  if (result.outcome === 'cancelled') return '(turn cancelled)\n';
  const reason = result.error ? `: ${result.error.replace(/\s*\n\s*/g, ' ')}` : '';
  return `${reply}(cycle ${result.cycleId} ${result.outcome.replace('_', ' ')}${reason})\n`;
}

/**
 * Cancels this chat's turn: waits for it to start (a cycle other than `previous`, whose reflect may still run), then
 * cancels that cycle. Gives up once `settled` says the turn has ended anyway.
 */
async function cancelTurn(agents: Agents, target: AgentTarget, previous: string | undefined, settled: () => boolean) {
  while (!settled()) {
    const running = (await agents.status(target.agentId).catch(() => undefined))?.running;
    if (running?.trigger === 'chat' && running.cycleId !== previous) {
      // Refused only when the cycle ended meanwhile: the turn is then settling on its own.
      await agents.cancelCycle(target, running.cycleId).catch(() => undefined);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS));
  }
}

/** Cancels the cycle a streamed turn named once started, without asking the agent which cycle runs. */
async function cancelStarted(agents: Agents, target: AgentTarget, started: Promise<string>) {
  const cycleId = await started.catch(() => undefined);
  // Refused only when the cycle ended meanwhile, as in cancelTurn.
  if (cycleId) await agents.cancelCycle(target, cycleId).catch(() => undefined);
}

/** `scratchpad chat AGENT`: an interactive prompt where each line is one `send`. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .option('--no-stream', "print each reply once it has ended, with the turn's steps meanwhile"),
  async (agentId, options) => {
    const context = await agentContext(agentId);
    const spec = runtime.inProcessModel(context.config, options.model);
    const client = await runtime.client(context.config);
    const agents = new Agents(client);
    const { config, target } = await onAgentQueue(agents, context.config, context.target);
    const interactive = process.stdin.isTTY === true;
    const prompt = () => interactive && process.stdout.write('you> ');
    const shownModel = options.model ?? spec;
    process.stderr.write(`Chatting with ${agentWorkflowId(agentId)}${shownModel ? ` (model ${shownModel})` : ''}. `);
    process.stderr.write(`${HELP}\n`);
    const fallback = new runtime.WorkerFallback(client, config, spec);
    const lines = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
    const interrupts = new Interrupts(lines);
    // One reader of input for the chat and for the questions asked while a turn waits on a call; a question that the
    // turn's end makes moot leaves its pending line to the chat.
    const input = lines[Symbol.asyncIterator]();
    let pendingLine: Promise<IteratorResult<string>> | undefined;
    const nextLine = () => (pendingLine ??= input.next().finally(() => (pendingLine = undefined)));
    let turnSettled: Promise<unknown> = Promise.resolve();
    const prompter: Prompter = {
      ask: async (question) => {
        process.stdout.write(question);
        const next = await Promise.race([nextLine(), turnSettled.then(() => undefined)]);
        if (next === undefined) return undefined;
        if (!interactive && !next.done) process.stdout.write(`${next.value}\n`);
        return next.done ? undefined : next.value;
      },
      say: (text) => process.stdout.write(`${text}\n`),
    };
    const approvals = new Approvals(client);
    let lastCycleId: string | undefined;
    let cancelling: Promise<void> | undefined;
    // A reply comes before its reflect (the reply first): each turn waits for the agent to adopt it, and so does reading
    // the memory, or leaving, after a cancelled one, so the memory shown is the turn's and an in-process worker does
    // not leave it to another. On the way out the wait is bounded: a worker gone meanwhile would answer never.
    const reflected = async (timeoutMs?: number) => {
      await cancelling;
      if (lastCycleId) await adoptedCycle(agents, agentId, lastCycleId, { timeoutMs });
    };
    try {
      prompt();
      for (let next = await nextLine(); !next.done; next = await nextLine()) {
        const line = next.value.trim();
        if (line === '/quit' || line === '/exit') break;
        try {
          if (line === '') {
            // Nothing to send.
          } else if (line === '/scratchpad') {
            await reflected();
            const state = await fallback
              .serve(agents.scratchpad(agentId), agentWorkflowId(agentId), { quick: true })
              .catch(() => {
                throw new CliError('the agent has not started yet: send a message first');
              });
            process.stdout.write(renderMarkdown(state));
          } else if (line.startsWith('/directive')) {
            const text = line.slice('/directive'.length).trim();
            if (!text) throw new CliError('usage: /directive TEXT');
            await agents.directive(target, text);
            process.stdout.write('(directive sent)\n');
          } else if (line.startsWith('/')) {
            process.stdout.write(`${HELP}\n`);
          } else {
            const waiting = new AbortController();
            const args = { message: line, ...(options.model ? { model: options.model } : {}) };
            // Streamed, the reply and its tool calls print as they come; otherwise the turn's steps go to stderr until
            // its reply. Reflect, after it, goes on without a word.
            let started: Promise<string> | undefined;
            const send = options.stream
              ? () => {
                  const stream = agents.stream(target, args, { signal: waiting.signal });
                  started = stream.cycleId;
                  return printTurn(stream, chatOutput, 'agent> ');
                }
              : () => client.withAbortSignal(waiting.signal, () => agents.send(target, args));
            const quiet = new AbortController();
            const mark = options.stream ? undefined : await agentMark(client, agentId);
            const follower = mark && new AgentFollower(client, agentId, mark, { signal: quiet.signal, indent: '  ' });
            const turn = runtime
              .unwrapUpdateErrors(() => fallback.serve(send, agentWorkflowId(agentId)))
              .finally(() => quiet.abort());
            let settled = false;
            turnSettled = turn.then(
              () => (settled = true),
              () => (settled = true),
            );
            const previous = lastCycleId;
            let cancelled: Promise<void> | undefined;
            const cancel = () => {
              cancelled = started
                ? cancelStarted(agents, target, started)
                : cancelTurn(agents, target, previous, () => settled);
              cancelling = Promise.all([cancelling, cancelled]).then(() => undefined);
            };
            // A call of this turn that needs a person is asked about here. Left undecided when input ends, the turn
            // goes on in the agent, which accepted it: stop waiting for it, so the program can end.
            // Its queries end with the turn: one no worker answers would otherwise keep the process alive.
            const watching = new AbortController();
            void turnSettled.then(() => watching.abort());
            const watched = watchApprovals(approvals, agentId, turn, prompter, watching.signal);
            const ended = await Promise.race([interrupts.during(watched, cancel), interrupts.left]);
            if (ended === 'left') {
              turn.catch(() => undefined);
              // Leaving while the turn is cancelled: the wait for that below ends with it. Input that ended with a
              // call undecided leaves the turn to the agent, which accepted it. A stream is only read: its reading
              // stops now, as it would ask a worker that is about to stop.
              if (!cancelled || options.stream) waiting.abort();
              break;
            }
            const result = await turn;
            // The waiting indicator is erased before the reply is printed.
            await follower?.done;
            lastCycleId = result.cycleId;
            process.stdout.write(turnText(result, options.stream));
            // The next turn waits for this one's reflect in the agent anyway; meanwhile its outcome is worth a line.
            const record = await adoptedCycle(agents, agentId, result.cycleId);
            for (const notice of turnNotices(record)) process.stdout.write(`(${notice})\n`);
            const updated = record && memoryUpdatedLine(record, await memoryLineOf(client, result.cycleId));
            if (updated) process.stdout.write(`(${updated})\n`);
          }
        } catch (error) {
          // One line whatever failed (a refused send, a lost connection): the conversation goes on.
          process.stderr.write(`scratchpad: ${errorMessage(error).replace(/\s*\n\s*/g, ' ')}\n`);
        }
        prompt();
      }
    } finally {
      lines.close();
      await reflected(LEAVING_WAIT_MS);
      await fallback.close();
    }
    return EXIT.ok;
  },
);
