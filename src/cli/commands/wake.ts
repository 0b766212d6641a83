import { Agents } from '../../clients/agents';
import type { AgentStatus } from '../../core/agent/agent';
import { agentWorkflowId, parseCycleWorkflowId } from '../../common/ids';
import { EXIT, outcomeExitCode } from '../errors';
import { AgentFollower, agentMark } from '../follow';
import type { Closed } from '../progress';
import * as runtime from '../runtime';
import { agentContext, noAgentError, onAgentQueue, signalTarget } from '../agent-access';
import { defineCommand } from '../command';
import { WORKER_MODEL, collect } from '../options';
import { livePollers } from '../worker-presence';

/** How long a woken agent may take to show whether it started a cycle before the command says it did not. */
const SETTLE_MS = 2_000;

/** Whether the agent has nothing to run: no cycle running, none queued. */
function isIdle(status: AgentStatus): boolean {
  return status.running === null && status.queued === 0;
}

/** The cycle number of a cycle id of this agent, or 0. */
function cycleNumber(cycleId: string | undefined): number {
  return (cycleId && parseCycleWorkflowId(cycleId)?.n) || 0;
}

/** `wake` without `--follow`: the signal alone, and a word when no worker would run the cycle it starts. */
async function wakeOnly(agentId: string, options: { task: string[]; create?: boolean }): Promise<number> {
  const { agents, target } = await signalTarget(agentId, options.create);
  await agents.wake(target, { tasks: options.task, trigger: 'manual' });
  process.stdout.write(`Wake sent to ${agentWorkflowId(agentId)}.\n`);
  // A signal needs no worker to be taken, but its cycle does: say so rather than leave it waiting unseen.
  const queue = (await agents.describe(agentId))?.taskQueue ?? target.taskQueue;
  if ((await livePollers(agents.client, queue)).length === 0) {
    process.stderr.write(`No worker polls task queue "${queue}": the cycle runs once one does (npx scratchpad up).\n`);
  }
  return EXIT.ok;
}

/**
 * `scratchpad wake AGENT`: asks the agent to run a task cycle if tasks are pending. With `--follow`, follows the
 * cycles the wake starts to their outcome, or says that nothing was pending, so nothing started.
 */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .option('--create', 'start the agent when it does not exist (otherwise an unknown agent is an error)')
      .option('--task <text>', 'task to enqueue first (repeatable)', collect, [])
      .option('--follow', 'show the cycle the wake starts, step by step, until its outcome (or that none started)'),
  async (agentId, options) => {
    if (!options.follow) return wakeOnly(agentId, options);
    const context = await agentContext(agentId);
    const spec = runtime.inProcessModel(context.config, options.model);
    const client = await runtime.client(context.config);
    const agents = new Agents(client);
    const exists = (await agents.describe(agentId)) !== undefined;
    if (!exists && !options.create) throw noAgentError(agentId);
    const { config, target } = await onAgentQueue(agents, context.config, context.target);
    const workflowId = agentWorkflowId(agentId);
    // One fallback for the query and the wake: a worker this process starts for the one serves the other.
    const fallback = new runtime.WorkerFallback(client, config, spec);
    const ended: { cycleId: string; closed?: Closed }[] = [];
    let changed = (): void => undefined;
    const follower = new AgentFollower(client, agentId, await agentMark(client, agentId), {
      onCycle: (cycleId, closed) => {
        ended.push({ cycleId, closed });
        changed();
      },
    });
    try {
      const before = exists
        ? await fallback.serve(() => agents.status(agentId), workflowId, { quick: true })
        : { cycleCount: 0, running: null };
      if (before.running) {
        process.stderr.write(`${before.running.cycleId} is running; a woken cycle starts after it.\n`);
      }
      const woken = async (): Promise<number> => {
        await agents.wake(target, { tasks: options.task, trigger: 'manual' });
        process.stderr.write(`Wake sent to ${workflowId}; following the cycle it starts.\n`);
        const last = await settle(
          agents,
          agentId,
          before.cycleCount,
          () => ended,
          (wake) => (changed = wake),
        );
        if (last === undefined) {
          process.stdout.write(`No task was pending, so ${workflowId} started no cycle.\n`);
          return EXIT.ok;
        }
        await follower.finish(last);
        const result = ended.find((entry) => entry.cycleId === last)?.closed?.result;
        return result ? outcomeExitCode(result) : EXIT.cycleFailed;
      };
      return await fallback.serve(woken, workflowId);
    } finally {
      follower.stop();
      await follower.done;
      await fallback.close();
    }
  },
);

/**
 * Waits until the agent is idle again and returns the last cycle the wake led to, or undefined when it started none
 * within {@link SETTLE_MS}: the agent's status (a query) says what runs and what is queued.
 */
async function settle(
  agents: Agents,
  agentId: string,
  countBefore: number,
  ended: () => { cycleId: string }[],
  onChange: (wake: () => void) => void,
): Promise<string | undefined> {
  const quietUntil = Date.now() + SETTLE_MS;
  for (;;) {
    const status = await agents.status(agentId);
    const newest = Math.max(cycleNumber(status.running?.cycleId ?? undefined), status.cycleCount);
    if (newest <= countBefore && isIdle(status) && Date.now() > quietUntil) return undefined;
    if (newest > countBefore && isIdle(status)) {
      const last = `${agentWorkflowId(agentId)}/cycle/${newest}`;
      if (ended().some((entry) => entry.cycleId === last)) return last;
    }
    if (newest <= countBefore && isIdle(status) && Date.now() <= quietUntil) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    // Something runs or is queued: look again when a cycle ends (or now and then, should a cycle end unseen).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      onChange(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
