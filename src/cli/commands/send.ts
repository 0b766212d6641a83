import { outcomeExitCode } from '../errors';
import { withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { WORKER_MODEL } from '../options';
import { adoptedCycle, firstLine, turnNotices } from '../turns';
import { STDIO, memoryLineOf, memoryUpdatedLine, printTurn } from '../turn-printer';
import type { Agents, AgentTarget } from '../../clients/agents';
import type { SendArgs, SendResult } from '../../core/agent/agent';

/**
 * Ctrl-C during a streamed turn: the first cancels the turn (the model's request is aborted, the memory stays as it
 * was) and the reply's end is still awaited; a second leaves at once.
 */
function cancelOnInterrupt(agents: Agents, target: AgentTarget, cycleId: Promise<string>): () => void {
  let pressed = false;
  const press = () => {
    if (pressed) process.exit(130);
    pressed = true;
    process.stderr.write('\n(cancelling the turn…)\n');
    void cycleId.then((id) => agents.cancelCycle(target, id)).catch(() => undefined);
  };
  process.on('SIGINT', press);
  return () => process.off('SIGINT', press);
}

/** One streamed turn, printed as it comes; resolves as `send` would. */
async function streamed(agents: Agents, target: AgentTarget, args: SendArgs): Promise<SendResult> {
  const stream = agents.stream(target, args);
  const release = cancelOnInterrupt(agents, target, stream.cycleId);
  try {
    return await printTurn(stream, STDIO);
  } finally {
    release();
  }
}

/**
 * `scratchpad send AGENT TEXT`: one chat turn; prints the reply as the model writes it. With a worker of this process
 * it exits once the agent has adopted the turn, reflect included, and says what became of the memory; with a worker
 * of its own, once the reply has ended.
 */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .argument('<text>', 'the message')
      .option('--json', 'print reply, cycle id and outcome as JSON, once the turn has ended (reflect included)')
      .option('--no-stream', 'print the reply in one write once it has ended'),
  async (agentId, message, options) => {
    const args = { message, ...(options.model !== undefined && { model: options.model }) };
    const quiet = options.json === true;
    const result = await withAgent(
      agentId,
      options.model,
      async (agents, target, served) => {
        const answer =
          options.stream && !quiet ? await streamed(agents, target, args) : await agents.send(target, args);
        if (quiet) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        else if (!options.stream && answer.reply) process.stdout.write(`${answer.reply}\n`);
        // The reply comes before reflect (design.md, The reply first): an in-process worker stopped now would cut it
        // short, and the next command would find the agent still busy with the turn. The agent says when it is done.
        const adopt = served.inProcess || !options.stream || quiet;
        const record = adopt ? await adoptedCycle(agents, agentId, answer.cycleId) : undefined;
        if (!quiet && answer.outcome !== 'completed') {
          const reason = answer.error ?? record?.error;
          process.stderr.write(`cycle ${answer.cycleId}: ${answer.outcome}${reason ? `: ${firstLine(reason)}` : ''}\n`);
        }
        if (quiet || !record) return answer;
        for (const line of turnNotices(record)) process.stderr.write(`${line}\n`);
        const updated = memoryUpdatedLine(record, await memoryLineOf(agents.client, answer.cycleId));
        if (updated) process.stderr.write(`${updated}\n`);
        return answer;
      },
      { create: true },
    );
    return outcomeExitCode(result);
  },
);
