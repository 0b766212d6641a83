import * as readline from 'node:readline';
import { Agents } from '../../client';
import { renderMarkdown } from '../../core/scratchpad/render';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { agentContext, onAgentQueue } from './agent';
import { agentWorkflowId } from '../../common/ids';

const HELP =
  'Type a message and press Enter. /scratchpad shows the scratchpad, /directive TEXT sends a directive, /quit leaves.';

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
  try {
    prompt();
    for await (const raw of lines) {
      const line = raw.trim();
      if (line === '/quit' || line === '/exit') break;
      try {
        if (line === '') {
          // Nothing to send.
        } else if (line === '/scratchpad') {
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
          const result = await runtime.unwrapUpdateErrors(() =>
            fallback.serve(agents.send(target, { message: line }), agentWorkflowId(agentId)),
          );
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
    await fallback.close();
  }
  return EXIT.ok;
}
