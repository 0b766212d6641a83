import { outcomeExitCode } from '../errors';
import { withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { WORKER_MODEL } from '../options';
import { adoptedCycle, firstLine, turnNotices } from '../turns';

/**
 * `scratchpad send AGENT TEXT`: one chat turn; prints the reply as soon as respond ends, and exits once the agent has
 * adopted the turn, reflect included.
 */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .argument('<text>', 'the message')
      .option('--json', 'print reply, cycle id and outcome as JSON'),
  async (agentId, message, options) => {
    const args = { message, ...(options.model !== undefined && { model: options.model }) };
    const result = await withAgent(
      agentId,
      options.model,
      async (agents, target) => {
        const answer = await agents.send(target, args);
        if (options.json) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        else if (answer.reply) process.stdout.write(`${answer.reply}\n`);
        // The reply comes before reflect (design.md, The reply first): an in-process worker stopped now would cut it
        // short, and the next command would find the agent still busy with the turn. The agent says when it is done.
        const record = await adoptedCycle(agents, agentId, answer.cycleId);
        if (!options.json && answer.outcome !== 'completed') {
          const reason = answer.error ?? record?.error;
          process.stderr.write(`cycle ${answer.cycleId}: ${answer.outcome}${reason ? `: ${firstLine(reason)}` : ''}\n`);
        }
        if (!options.json) for (const line of turnNotices(record)) process.stderr.write(`${line}\n`);
        return answer;
      },
      { create: true },
    );
    return outcomeExitCode(result);
  },
);
