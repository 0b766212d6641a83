import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  type CycleResult,
  cycleWorkflowId,
  defaultScratchpad,
  enqueueTasks,
  workerToolCatalogue,
} from 'durable-scratchpad';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput } from '../../src/core/cycle/input';
import { hasPollers } from '../../src/clients/task-queues';
import { npmPack, packedPackage } from '../helpers/packed-package';
import { testEnvironment, testServerAddress, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';

// The tools are a consumer's: the packed package installed in a folder of its own, a CommonJS worker program there
// (fixtures/consumer-worker.js) run as a child process. Only the client side is this repository's source.
const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8')) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf-8', stdio: ['ignore', 'pipe', 'pipe'] });
}

let folder: string;
let app: string;
/** The consumer's temporary directory, where its workers keep their workflow bundle. */
let tmp: string;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/worker.js'))) throw new Error('run `npm run build` before this test');
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-consumer-'));
  const { tarball } = await packedPackage(folder);
  // zod installed from its own tarball, a real copy in the consumer's node_modules (the others are linked): the
  // consumer's zod, which the package must share, as a peer, rather than bring its own.
  const { tarball: zod } = await npmPack(path.join(ROOT, 'node_modules/zod'), folder);
  app = path.join(folder, 'app');
  fs.mkdirSync(app);
  tmp = path.join(folder, 'tmp');
  fs.mkdirSync(tmp);
  // A worker's host: the package's dependencies and the worker's, its optional peer dependencies.
  const linked = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependenciesMeta ?? {})].filter(
    (name) => name !== 'zod',
  );
  const dependencies = Object.fromEntries([
    ['durable-scratchpad', `file:${tarball}`],
    ['zod', `file:${zod}`],
    ...linked.map((name) => [name, `file:${path.join(ROOT, 'node_modules', name)}`]),
  ]);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
  fs.copyFileSync(path.join(__dirname, 'fixtures/consumer-worker.js'), path.join(app, 'worker.js'));
  env = await testEnvironment();
}, 180_000);

/** A worker process of the consumer's program; its whole process group is killed, by the test or in afterAll. */
interface WorkerProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far, for a failure's message. */
  output(): string;
  exited: Promise<void>;
}

const workers: WorkerProcess[] = [];

/** The workflow bundles the consumer's workers keep, each with its inode: a bundle built again is a new file. */
function keptBundles(): { name: string; inode: number }[] {
  const cache = path.join(tmp, `durable-scratchpad-bundles-${process.getuid?.() ?? 0}`);
  if (!fs.existsSync(cache)) return [];
  return fs
    .readdirSync(cache)
    .filter((name) => /^workflow-bundle-\w+\.js$/.test(name))
    .map((name) => ({ name, inode: fs.statSync(path.join(cache, name)).ino }));
}

/** Starts the consumer's worker on `taskQueue` and waits until it polls, or fails with its output. */
async function startWorker(taskQueue: string, runsDir: string): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['worker.js'], {
    cwd: app,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testServerAddress(),
      TASK_QUEUE: taskQueue,
      RUNS_DIR: runsDir,
      TMPDIR: tmp,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const worker: WorkerProcess = { child, output: () => output, exited };
  workers.push(worker);
  let gone = false;
  void exited.then(() => (gone = true));
  const ready = () => /^ready \d+$/m.test(output);
  // A timeout is reported below, with what the worker printed.
  await waitFor(() => ready() || gone, 60_000).catch(() => undefined);
  if (!ready()) {
    throw new Error(
      `the consumer's worker ${gone ? 'exited before it was ready' : 'was not ready in 60 s'}:\n${output}`,
    );
  }
  // `run()` has begun, but its first poll may not have reached the server yet (a busy machine).
  await waitFor(() => hasPollers(env.client, taskQueue), 30_000).catch(() => {
    throw new Error(`the consumer's worker did not poll in 30 s:\n${output}`);
  });
  return worker;
}

function killGroup(worker: WorkerProcess): void {
  if (worker.child.pid === undefined || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  try {
    process.kill(-worker.child.pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

afterAll(async () => {
  for (const worker of workers) killGroup(worker);
  await Promise.all(workers.map((worker) => worker.exited));
  await env?.teardown();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

interface Run {
  tool: string;
  args: Record<string, unknown>;
  agentId?: string;
  pid: number;
}

/** The tools' real runs, as the consumer's tools recorded them. */
function runsIn(runsDir: string, agentId: string): Run[] {
  const file = path.join(runsDir, 'runs.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf-8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Run)
    .filter((entry) => entry.agentId === agentId);
}

/** Starts one cycle of a fresh agent whose single task names the script's case. */
async function startCycle(taskQueue: string, scriptCase: string) {
  const agentId = uniqueId('consumer');
  const before = enqueueTasks(defaultScratchpad(`Consumer tools, ${scriptCase}`), [`Work on ${scriptCase}`]);
  const handle = await env.client.workflow.start('agentCycle', {
    taskQueue,
    workflowId: cycleWorkflowId(agentId, 1),
    args: [{ agentId, before } satisfies CycleInput],
    typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
  });
  return { agentId, handle, result: () => handle.result() as Promise<CycleResult> };
}

/** The note of the first call of `tool`. */
function toolNote(result: CycleResult, tool: string): string {
  const note = result.after.notes.split('\n').find((line) => line.startsWith(`[TOOL] ${tool}(`));
  if (note === undefined) throw new Error(`no note of ${tool} in:\n${result.after.notes}`);
  return note;
}

describe('a tool of your own through the packed package, in a consumer folder', () => {
  let taskQueue: string;
  let runsDir: string;

  beforeAll(async () => {
    taskQueue = uniqueTaskQueue('consumer-tools');
    runsDir = fs.mkdtempSync(path.join(folder, 'runs-'));
    await startWorker(taskQueue, runsDir);
  }, 90_000);

  it("offers the consumer's tools, their schemas from its zod and from JSON Schema, with their policies", async () => {
    const { tools } = await workerToolCatalogue(env.client, taskQueue);
    const ours = tools.filter((tool) => tool.source === 'code');
    expect(ours.map(({ name, policy }) => ({ name, policy }))).toEqual([
      { name: 'lookup_order', policy: { retry: true, offload: true, approval: 'auto' } },
      { name: 'big_report', policy: { retry: true, offload: true, approval: 'auto' } },
      { name: 'charge_card', policy: { retry: false, offload: true, approval: 'auto' } },
    ]);
    expect(ours[0]!.inputSchema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^A\\d+$' }, verbose: { type: 'boolean', default: false } },
      required: ['id'],
    });
  });

  it('refuses a bad argument with a note naming the tool, and never runs the tool', async () => {
    const cycle = await startCycle(taskQueue, 'CASE-invalid');
    const result = await cycle.result();
    expect(result.outcome).toBe('completed');
    expect(result.after.notes).toContain(
      '[TOOL] lookup_order({"id":"nope"}) → ERROR: invalid arguments for lookup_order',
    );
    expect(result.after.notes).toContain(
      '[TOOL] big_report({"kilobytes":"lots"}) → ERROR: invalid arguments for big_report',
    );
    expect(result.after.completed_tasks).toEqual([{ task: 'Work on CASE-invalid', summary: 'refused' }]);
    expect(runsIn(runsDir, cycle.agentId)).toEqual([]);
  });

  it("brings a normal result to the notes, with the consumer's zod defaults applied", async () => {
    const cycle = await startCycle(taskQueue, 'CASE-normal');
    const result = await cycle.result();
    expect(result.outcome).toBe('completed');
    expect(toolNote(result, 'lookup_order')).toContain('"id":"A17","status":"shipped","verbose":false');
    expect(result.after.completed_tasks).toEqual([{ task: 'Work on CASE-normal', summary: 'A17 shipped' }]);
    expect(runsIn(runsDir, cycle.agentId).map(({ tool, args }) => ({ tool, args }))).toEqual([
      { tool: 'lookup_order', args: { id: 'A17', verbose: false } },
    ]);
  });

  it('offloads a 50 KB result to the observation store: the note holds its scratchpad_id', async () => {
    const cycle = await startCycle(taskQueue, 'CASE-large');
    const result = await cycle.result();
    expect(result.outcome).toBe('completed');
    const note = toolNote(result, 'big_report');
    expect(note).toMatch(/"scratchpad_id":"[^"]+"/);
    expect(note).toContain('"size_bytes":');
    expect(note.length).toBeLessThan(5000);
    expect(result.after.completed_tasks).toEqual([{ task: 'Work on CASE-large', summary: 'report stored' }]);
    expect(runsIn(runsDir, cycle.agentId)).toHaveLength(1);
  });
});

describe('a retry: false tool whose worker is killed mid-call', () => {
  it('is not run again on the next worker, and the model is told why', async () => {
    const taskQueue = uniqueTaskQueue('consumer-once');
    const runsDir = fs.mkdtempSync(path.join(folder, 'runs-'));
    const first = await startWorker(taskQueue, runsDir);
    // The package's workflows alone: the worker that bundled them first keeps that bundle, later starts take it.
    const kept = keptBundles();
    expect(kept).toHaveLength(1);
    const cycle = await startCycle(taskQueue, 'CASE-once');
    const marker = path.join(runsDir, 'charge-started');
    await waitFor(() => fs.existsSync(marker), 30_000).catch(() => {
      throw new Error(`charge_card never started:\n${first.output()}`);
    });
    killGroup(first);
    await first.exited;
    const second = await startWorker(taskQueue, runsDir);
    expect(keptBundles()).toEqual(kept);

    const result = await cycle.result();
    expect(result.outcome).toBe('completed');
    expect(toolNote(result, 'charge_card')).toContain(
      '[TOOL] charge_card({"cents":500}) → ERROR: charge_card did not finish and was not run again: it must not run twice (retry: false)',
    );
    expect(result.after.completed_tasks).toEqual([{ task: 'Work on CASE-once', summary: 'charge state unknown' }]);
    const runs = runsIn(runsDir, cycle.agentId);
    expect(runs.map(({ tool, pid }) => ({ tool, pid }))).toEqual([{ tool: 'charge_card', pid: first.child.pid }]);
    // The second worker's model was asked with the failure in its prompt, and answered from it.
    const asked = fs
      .readFileSync(path.join(runsDir, 'model.jsonl'), 'utf-8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { pid: number; prompt: string })
      .filter((request) => request.pid === second.child.pid);
    expect(asked.map((request) => request.prompt)).toEqual([
      expect.stringMatching(/charge_card did not finish and was not run again: .*\(retry: false\)/),
    ]);
  }, 90_000);
});

describe("the package's zod", () => {
  it('is a peer: the consumer has one copy, which the package shares', () => {
    expect(manifest.peerDependencies?.zod).toBe('^4.0.0');
    expect(manifest.peerDependenciesMeta?.zod).toBeUndefined();
    const output = run(
      'node',
      [
        '-e',
        `const path = require('node:path');
         const package_ = path.dirname(require.resolve('durable-scratchpad/package.json'));
         console.log(JSON.stringify({ consumer: require.resolve('zod'), package: require.resolve('zod', { paths: [package_] }) }));`,
      ],
      app,
    );
    const resolved = JSON.parse(output) as { consumer: string; package: string };
    expect(resolved.package).toBe(resolved.consumer);
    expect(fs.lstatSync(path.join(app, 'node_modules/zod')).isSymbolicLink()).toBe(false);
  });

  it('takes a schema from another copy of zod 4 than its own', () => {
    const other = path.join(folder, 'other-zod/node_modules/zod');
    fs.cpSync(path.join(app, 'node_modules/zod'), other, { recursive: true });
    const output = run(
      'node',
      [
        '-e',
        `const { defineTool } = require('durable-scratchpad/worker');
         const z = require(${JSON.stringify(other)});
         const tool = defineTool({ name: 'count', description: 'Counts.', input: z.object({ n: z.number().int() }), run: () => 1 });
         console.log(JSON.stringify({
           separate: z !== require('zod'),
           schema: tool.inputSchema,
           good: tool.parse({ n: 2 }),
           bad: tool.parse({ n: 'two' }),
         }));`,
      ],
      app,
    );
    expect(JSON.parse(output)).toEqual({
      separate: true,
      schema: expect.objectContaining({
        type: 'object',
        properties: { n: expect.objectContaining({ type: 'integer' }) },
      }),
      good: { ok: true, args: { n: 2 } },
      bad: { ok: false, error: expect.stringContaining('n') },
    });
  });
});
