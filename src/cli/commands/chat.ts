import * as readline from 'node:readline';
import { Agents, Approvals } from '../../client';
import { renderMarkdown } from '../../core/scratchpad/render';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { agentContext, onAgentQueue } from './agent';
import { type Prompter, watchApprovals } from './chat-approvals';
import { agentWorkflowId } from '../../common/ids';

const HELP =
  'Type a message and press Enter. /scratchpad shows the scratchpad, /directive TEXT sends a directive, /quit leaves. ' +
  'A tool call that needs your approval is asked about inline.';

/** `scratchpad chat AGENT`: an interactive prompt where each line is one `send`. */
export async function chatCommand(agentId: string, options: { model?: string }): Promise<number> {
  const context = await agentContext(agentId);
  const spec = runtime.modelSpec(context.config, options.model);
  const client = await runtime.client(context.config);
  const agents = new Agents(client);
  const { config, target } = await onAgentQueue(agents, context.config, context.target);
  const interactive = process.stdin.isTTY === true;
  const prompt = () => interactive && process.stdout.write('you> ');
  process.stderr.write(`Chatting with ${agentWorkflowId(agentId)} (model ${spec}). ${HELP}\n`);
  const fallback = new runtime.WorkerFallback(client, config, spec);
  const lines = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
  // One reader of input for the chat and for the questions asked while a turn waits on a call.
  const input = lines[Symbol.asyncIterator]();
  const prompter: Prompter = {
    ask: async (question) => {
      process.stdout.write(question);
      const next = await input.next();
      if (!interactive && !next.done) process.stdout.write(`${next.value}\n`);
      return next.done ? undefined : next.value;
    },
    say: (text) => process.stdout.write(`${text}\n`),
  };
  const approvals = new Approvals(client);
  let lastCycleId: string | undefined;
  // A reply comes before its reflect (the reply first): reading the memory, or leaving, waits for that reflect, so the
  // memory shown is the turn's and an in-process worker does not cut reflect short.
  const reflected = async () => {
    const last = lastCycleId && client.workflow.getHandle(lastCycleId).result();
    if (last) await last.catch(() => undefined);
  };
  try {
    prompt();
    for (let next = await input.next(); !next.done; next = await input.next()) {
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
          const send = client.withAbortSignal(waiting.signal, () => agents.send(target, { message: line }));
          const turn = runtime.unwrapUpdateErrors(() => fallback.serve(send, agentWorkflowId(agentId)));
          // A call of this turn that needs a person is asked about here. Left undecided when input ends, the turn
          // goes on in the agent, which accepted it: stop waiting for it, so the program can end.
          if ((await watchApprovals(approvals, agentId, turn, prompter)) === 'left') {
            turn.catch(() => undefined);
            waiting.abort();
            break;
          }
          const result = await turn;
          lastCycleId = result.cycleId;
          process.stdout.write(`agent> ${result.reply}\n`);
          if (result.outcome !== 'completed') process.stdout.write(`(cycle ${result.cycleId}: ${result.outcome})\n`);
        }
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        process.stderr.write(`scratchpad: ${error.message}\n`);
      }
      prompt();
    }
  } finally {
    lines.close();
    await reflected();
    await fallback.close();
  }
  return EXIT.ok;
}
