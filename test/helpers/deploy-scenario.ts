import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { approvalsQuery, decideUpdate, wakeSignal } from '../../src/common/messages/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import { workflowBuild } from '../../src/clients/deployments';
import type { Config } from '../../src/config';
import { SHARED_WORKFLOW_MODULES } from '../../src/config/paths';
import { createWorker, workerSinks } from '../../src/workers/create-worker';
import { ScratchpadPlugin } from '../../src/workers/plugin';
import { bundleWorkflows, sandboxOptions, TEST_WORKER_THREAD } from './worker';
import { uniqueTaskQueue, waitFor } from './temporal';
import { type CliRun, runCli } from './cli';

/*
 * Two builds of one Worker Deployment whose cycle code differs (next-build/workflows.ts): a cycle that waits for a
 * person on build one is still waiting when build two is made current, then finishes on build one, while the agent
 * moves to build two and starts its next cycle there. Replaying the first cycle's history on build two's code fails,
 * so only pinning keeps it alive. `deploy`, `ps` and `status` run as a user runs them (bin/, from dist/). The dev
 * server suite and the cluster suite run it, each on its own server.
 */

/** Where the scenario runs: a server, connections to it, configuration as a worker there loads it. */
export interface DeployPlace {
  client: Client;
  /** A connection of its own per worker, as worker processes have. */
  connect(): Promise<NativeConnection>;
  /** Configuration of a CLI worker with these variables besides the server's. */
  config(variables: NodeJS.ProcessEnv): Config;
  /** What the CLI needs besides TEMPORAL_ADDRESS to reach the server (TLS). */
  cliEnv?: Record<string, string>;
  earlier: WorkflowBundleOption;
  later: WorkflowBundleOption;
}

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined };

/** The two builds' workflow code: this package's, and the later build's with its changed cycle. */
export async function bundleBuilds(): Promise<Pick<DeployPlace, 'earlier' | 'later'>> {
  const earlier = await bundleWorkflows();
  const later = await bundleWorkflowCode({
    workflowsPath: require.resolve('./next-build/workflows'),
    preloadModules: [...SHARED_WORKFLOW_MODULES],
    logger: { ...quiet, warn: () => undefined, error: (message: string) => console.error(message) },
  });
  return { earlier, later };
}

/** Build one: a worker of the user's own with the plugin, its build given as the plugin's option. */
async function buildOne(
  place: DeployPlace,
  taskQueue: string,
  deploymentName: string,
  home: string,
  script: ScriptEntry[],
) {
  const model = new ScriptedProvider(script, 'one');
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: await place.connect(),
    taskQueue,
    identity: `one-${process.pid}@${os.hostname()}`,
    workflowBundle: place.earlier,
    plugins: [
      new ScratchpadPlugin({
        model: 'scripted:test',
        providers: { 'scripted:test': model },
        toolLimits: sandboxOptions(),
        observations: path.join(home, 'observations.db'),
        deployment: { deploymentName, buildId: 'one' },
      }),
    ],
  });
  return { worker, model };
}

/** Build two: the CLI's worker, its build from SCRATCHPAD_DEPLOYMENT and SCRATCHPAD_BUILD_ID. */
async function buildTwo(
  place: DeployPlace,
  taskQueue: string,
  deploymentName: string,
  home: string,
  script: ScriptEntry[],
) {
  const model = new ScriptedProvider(script, 'two');
  const config = place.config({
    SCRATCHPAD_HOME: home,
    SCRATCHPAD_TASK_QUEUE: taskQueue,
    SCRATCHPAD_DEPLOYMENT: deploymentName,
    SCRATCHPAD_BUILD_ID: 'two',
  });
  const worker = await createWorker({
    config,
    connection: await place.connect(),
    modelSpec: 'scripted:test',
    providers: { 'scripted:test': model },
    log: () => undefined,
    workerOptions: {
      ...TEST_WORKER_THREAD,
      identity: `two-${process.pid}@${os.hostname()}`,
      workflowBundle: place.later,
      workflowsPath: undefined,
      bundlerOptions: undefined,
      sinks: workerSinks(),
    },
  });
  return { worker, model };
}

async function eventsOf(client: Client, workflowId: string) {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** `work`, or past `timeoutMs` a failure naming what stalls `workflowId` (a workflow task failing over and over). */
async function within<T>(client: Client, work: Promise<T>, workflowId: string, timeoutMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void eventsOf(client, workflowId).then((events) => {
        const failures = events.flatMap((event) => event.workflowTaskFailedEventAttributes?.failure?.message ?? []);
        reject(new Error(`${workflowId} is stalled; its workflow task failures: ${JSON.stringify(failures)}`));
      }, reject);
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

function resultOf(client: Client, workflowId: string): Promise<CycleResult> {
  return within(client, client.workflow.getHandle(workflowId).result() as Promise<CycleResult>, workflowId);
}

/** The scenario, with its expectations. */
export async function deployWhileACycleWaits(place: DeployPlace): Promise<void> {
  const { client } = place;
  const taskQueue = uniqueTaskQueue('deploy');
  const deploymentName = `scratchpad-${randomUUID().slice(0, 8)}`;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-deploy-'));
  // The scenario's workers serve every command: none may run one of its own (and each can run in the test's process).
  const env = { SCRATCHPAD_IN_PROCESS_WORKER: 'false', ...place.cliEnv };
  const cli = (args: string[]): Promise<CliRun> => runCli(args, { home, taskQueue, env });
  const one = await buildOne(place, taskQueue, deploymentName, home, [
    { match: ['Iteration 1 of'], tool: 'echo', args: { message: 'asked before the deploy' } },
    // Slow, so the cycle is still running on build one when `status` looks.
    { match: ['Iteration 2 of'], tool: 'done', args: { summary: 'finished on build one' }, delayMs: 6000 },
  ]);
  const early = await cli(['deploy', 'one', '--deployment', deploymentName]);
  expect(early.code).toBe(1);
  expect(early.stderr).toContain(`no worker of build ${deploymentName}:one has polled yet`);
  const running = [one.worker.run()];
  let two: Awaited<ReturnType<typeof buildTwo>> | undefined;
  try {
    await waitFor(
      () => cli(['deploy', 'one', '--deployment', deploymentName]),
      (run) => run.code === 0,
    );

    const agentId = `deploy-${randomUUID().slice(0, 8)}`;
    const agent = await client.workflow.start('agent', {
      taskQueue,
      workflowId: agentWorkflowId(agentId),
      args: [{ agentId, settings: { approve: ['echo'] } }],
    });
    await agent.signal(wakeSignal, { tasks: ['say something'] });
    await waitFor(
      () => agent.query(approvalsQuery),
      (calls) => calls.length === 1,
    );

    two = await buildTwo(place, taskQueue, deploymentName, home, [
      { match: ['Iteration 1 of'], tool: 'done', args: { summary: 'finished on build two' } },
    ]);
    running.push(two.worker.run());
    // No --deployment and no SCRATCHPAD_DEPLOYMENT: the one deployment polling the task queue.
    const deployed = await waitFor(
      () => cli(['deploy', 'two']),
      (run) => run.code === 0,
    );
    expect(deployed.stdout).toContain(`Build two of deployment ${deploymentName} is current (was one).`);
    const ps = await cli(['ps']);
    expect(ps.stdout).toMatch(new RegExp(`^Build ${deploymentName}:two: current; workers two-`, 'm'));
    expect(ps.stdout).toMatch(
      new RegExp(
        `^Build ${deploymentName}:one: draining; workers one-[^;]+; 2 open workflow\\(s\\) on it \\(1 pinned`,
        'm',
      ),
    );

    // The agent forwards the decision to the waiting cycle, which takes it on build one.
    const decided = agent.executeUpdate(decideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
    await within(client, decided, cycleWorkflowId(agentId, 1));
    const status = await cli(['status', agentId]);
    expect(status.stdout).toContain(
      `build: the agent runs on ${deploymentName}:two (moves to each build made current)`,
    );
    expect(status.stdout).toContain(
      `${cycleWorkflowId(agentId, 1)} runs on ${deploymentName}:one (pinned: finishes there)`,
    );
    const first = await resultOf(client, cycleWorkflowId(agentId, 1));
    expect(first.outcome).toBe('completed');
    expect(first.after.notes).toContain('finished on build one');

    await agent.signal(wakeSignal, { tasks: ['say something else'] });
    await waitFor(
      () => client.workflow.getHandle(cycleWorkflowId(agentId, 2)).describe(),
      () => true,
    );
    const second = await resultOf(client, cycleWorkflowId(agentId, 2));
    expect(second.after.notes).toContain('finished on build two');

    expect(await workflowBuild(client, cycleWorkflowId(agentId, 1))).toEqual({
      deploymentName,
      buildId: 'one',
      behavior: 'pinned',
    });
    expect(await workflowBuild(client, cycleWorkflowId(agentId, 2))).toEqual({
      deploymentName,
      buildId: 'two',
      behavior: 'pinned',
    });
    expect(await workflowBuild(client, agentWorkflowId(agentId))).toEqual({
      deploymentName,
      buildId: 'two',
      behavior: 'auto-upgrade',
    });
    expect(one.model.requests).toHaveLength(2);
    expect(two.model.requests).toHaveLength(1);

    const histories = {
      agent: await eventsOf(client, agentWorkflowId(agentId)),
      first: await eventsOf(client, cycleWorkflowId(agentId, 1)),
      second: await eventsOf(client, cycleWorkflowId(agentId, 2)),
    };
    for (const events of Object.values(histories)) {
      expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    }
    // Build two's mark, the 1 ms timer, is in the cycle it ran and not in the one build one ran.
    const marks = (events: typeof histories.first) =>
      events.filter((event) => event.timerStartedEventAttributes?.startToFireTimeout?.nanos === 1_000_000);
    expect(marks(histories.second)).toHaveLength(1);
    expect(marks(histories.first)).toHaveLength(0);

    // What pinning spared the first cycle: build two's code cannot replay it, build one's can.
    const history = await client.workflow.getHandle(cycleWorkflowId(agentId, 1)).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: place.later, sinks: workerSinks() }, history, 'first'),
    ).rejects.toMatchObject({ name: 'DeterminismViolationError' });
    await Worker.runReplayHistory({ workflowBundle: place.earlier, sinks: workerSinks() }, history, 'first');
    await agent.terminate();
  } finally {
    one.worker.shutdown();
    two?.worker.shutdown();
    await Promise.all(running);
  }
}
