import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureTemporalCli } from '../src/dev-server/provision';
import { parseBenchOptions } from './bench-options';
import { formatMs, measureInterleaved, median, progress, table } from './measure';
import { type Cleanup, openTemporalTarget, runBenchmark } from './temporal-target';

/*
 * Command-line wall time (issue 21): `--help`, `show`, `status` and `send` as a user runs them, each a fresh
 * `node bin/scratchpad.js` process against a dev server with a worker already polling (`scratchpad up`'s setup), and
 * the stock `temporal workflow describe` of the same agent as the baseline, interleaved, median of `--runs` (10).
 * Goals: `--help` ≤ 0.25 s, `show` and `status` ≤ 0.5 s, `send` ≤ 1.2 s plus model time (the scripted model answers
 * at once).
 */

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');
const QUEUE = `bench-cli-${process.pid}`;
const AGENT = `bench-cli-${process.pid}`;

/** Runs a command to its end; rejects with what it printed when it fails. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(performance.now() - start);
      else reject(new Error(`${path.basename(command)} ${args.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** A scripted model for every `send` of the run: respond with text, then reflect with an update. */
function writeScript(file: string, turns: number): void {
  const lines: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    lines.push(JSON.stringify({ text: `Reply ${turn}.` }));
    lines.push(JSON.stringify({ tool: 'update_scratchpad', args: { trajectory_now: `Turn ${turn}` } }));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** `scratchpad worker` in a process group of its own, resolved once it polls. */
async function startWorker(env: NodeJS.ProcessEnv, cleanups: Cleanup[]): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'worker'], { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGINT');
    await exited;
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Worker polling')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited ${code}: ${stderr.trim()}`)));
  });
}

runBenchmark(async (cleanups) => {
  const options = parseBenchOptions(process.argv.slice(2));
  const runs = process.argv.includes('--runs') ? options.runs : 10;
  const target = await openTemporalTarget(options);
  cleanups.push(() => target.stop());
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-cli-'));
  cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  const script = path.join(home, 'model.jsonl');
  writeScript(script, runs + 5);
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    SCRATCHPAD_HOME: home,
    TEMPORAL_ADDRESS: target.address,
    TEMPORAL_NAMESPACE: target.namespace,
    SCRATCHPAD_TASK_QUEUE: QUEUE,
    // `NODE_DISABLE_COMPILE_CACHE=1 npm run bench:cli` measures commands that compile every module from source.
    ...(process.env.NODE_DISABLE_COMPILE_CACHE
      ? { NODE_DISABLE_COMPILE_CACHE: process.env.NODE_DISABLE_COMPILE_CACHE }
      : {}),
  };
  progress(`worker on ${QUEUE} (scripted model)`);
  await startWorker({ ...base, SCRATCHPAD_MODEL: `scripted:${script}` }, cleanups);
  // Clients carry no model: the worker has one.
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], base);
  await cli('send', AGENT, 'Hello');
  const temporal = await ensureTemporalCli({ log: (line) => progress(line) });
  const modes = [
    { label: 'temporal workflow describe', goalMs: undefined, command: () => run(temporal, describeArgs(), base) },
    { label: 'scratchpad --help', goalMs: 250, command: () => cli('--help') },
    { label: 'scratchpad show', goalMs: 500, command: () => cli('show', AGENT) },
    { label: 'scratchpad status', goalMs: 500, command: () => cli('status', AGENT) },
    { label: 'scratchpad send', goalMs: 1200, command: () => cli('send', AGENT, 'Next turn') },
  ];
  function describeArgs(): string[] {
    return ['workflow', 'describe', '--workflow-id', `agent/${AGENT}`];
  }
  const samples = await measureInterleaved(
    modes.map((mode) => ({ label: mode.label, runOnce: async () => ({ ms: await mode.command() }) })),
    runs,
  );
  const medians = samples.map((list) => median(list.map((sample) => sample.ms)));
  const baseline = medians[0]!;
  let met = true;
  const rows = [['command', 'median ms', '× describe', 'goal', 'met']];
  modes.forEach((mode, index) => {
    const ms = medians[index]!;
    const ok = mode.goalMs === undefined || ms <= mode.goalMs;
    met &&= ok;
    rows.push([
      mode.label,
      formatMs(ms),
      (ms / baseline).toFixed(2),
      mode.goalMs === undefined ? '-' : `≤ ${mode.goalMs}`,
      mode.goalMs === undefined ? '-' : ok ? 'yes' : 'NO',
    ]);
  });
  process.stdout.write(
    `Command-line wall time, median of ${runs} (${target.description}, ${os.cpus().length} cores, ` +
      `load ${os.loadavg()[0]!.toFixed(1)})\n${table(rows)}\n`,
  );
  return met;
});
