import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, progress, table } from './measure';

/*
 * Test time (issue 30): `npm test` from a clean clone, as CI runs it: clone, `npm ci` (not timed), `npm test` (timed),
 * with where the machine's CPU went. Each run has a clone of its own, so no jest cache or bundle of an earlier run
 * helps it; with --base, runs of the two refs alternate, so a machine that speeds up or slows down weighs on both.
 * Goal: at most 360 s on the 2-core machine. The classes of CPU come from sampling /proc every second: a process that
 * lives less than that is counted under "the rest", which the whole machine's CPU (/proc/stat) fixes.
 */

const USAGE = `usage: node dist/bench/test-time.js [--runs R] [--ref REF] [--base REF] [-- JEST-ARGS…]
  --runs R     clean runs of each ref; medians are reported (default 1)
  --ref REF    the commit to measure (default HEAD)
  --base REF   a commit to measure alongside, in alternating runs, for a ratio
  JEST-ARGS    passed to npm test (e.g. test/unit to try the benchmark itself on a small part)`;

interface Options {
  runs: number;
  ref: string;
  base?: string;
  jestArgs: string[];
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { runs: 1, ref: 'HEAD', jestArgs: [] };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const value = () => {
      const next = argv[++index];
      if (next === undefined || next.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--runs') {
      options.runs = Number(value());
      if (!Number.isInteger(options.runs) || options.runs < 1 || options.runs > 20) {
        throw new Error(`--runs: 1 to 20\n${USAGE}`);
      }
    } else if (flag === '--ref') options.ref = value();
    else if (flag === '--base') options.base = value();
    else if (flag === '--') options.jestArgs = argv.slice(index + 1) as string[];
    else throw new Error(`unknown argument "${flag}"\n${USAGE}`);
    if (flag === '--') break;
  }
  return options;
}

/** What a process is, from its command line: the parts of a run worth telling apart. */
const CLASSES: [string, RegExp][] = [
  ['jest workers', /processChild\.js/],
  ['llama-server', /llama-server/],
  ['dev server', /server start-dev/],
  ['Chromium', /chromium/i],
  ['scratchpad commands', /bin\/scratchpad\.js\b/],
];
const REST = 'the rest';
/** Clock ticks per second in /proc (USER_HZ, 100 on Linux). */
const TICK = 100;

/** CPU seconds of every live process, by pid and start time (a pid reused is another process). */
function processTimes(): Map<string, { cls: string; seconds: number }> {
  const times = new Map<string, { cls: string; seconds: number }>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const cls = CLASSES.find(([, pattern]) => pattern.test(command))?.[0] ?? REST;
      times.set(`${pid}:${fields[19]}`, { cls, seconds: (Number(fields[11]) + Number(fields[12])) / TICK });
    } catch {
      // gone between the listing and the read
    }
  }
  return times;
}

/** CPU seconds the whole machine has spent busy: user, nice, system, irq and softirq (not idle, iowait or steal). */
function machineSeconds(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]!) / TICK;
}

interface Run {
  wallS: number;
  cpuS: number;
  byClass: Record<string, number>;
}

/** The commit `ref` names now: later runs measure it even when a branch moves meanwhile. */
function commitOf(root: string, ref: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
  } catch {
    throw new Error(`no commit ${ref} in ${root}\n${USAGE}`);
  }
}

/**
 * Runs `command` to its end, its output to `log` when given; a failure rejects with the end of that log (the clones
 * and their logs are removed when the benchmark ends).
 */
async function step(command: string, args: string[], cwd: string, log?: string): Promise<void> {
  const out = log ? fs.openSync(log, 'w') : 'ignore';
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', out, out] });
    child.on('error', reject);
    child.on('exit', (exit) => resolve(exit ?? 1));
  }).finally(() => {
    if (typeof out === 'number') fs.closeSync(out);
  });
  if (code === 0) return;
  const end = log ? `:\n${fs.readFileSync(log, 'utf8').split('\n').slice(-40).join('\n')}` : '';
  throw new Error(`${command} ${args[0]} failed (exit ${code})${end}`);
}

/** A clean clone of `commit` with its dependencies installed, in `folder`. */
async function cleanClone(root: string, commit: string, folder: string): Promise<void> {
  await step('git', ['clone', '-q', root, folder], root);
  await step('git', ['checkout', '-q', commit], folder);
  await step('npm', ['ci', '--no-audit', '--no-fund'], folder, `${folder}-npm-ci.log`);
}

/** `npm test` in `folder`, timed, with the CPU of every class sampled once a second. */
async function timedTest(folder: string, jestArgs: string[]): Promise<Run> {
  const byClass: Record<string, number> = {};
  let last = processTimes();
  const sample = () => {
    const now = processTimes();
    for (const [key, { cls, seconds }] of now)
      byClass[cls] = (byClass[cls] ?? 0) + seconds - (last.get(key)?.seconds ?? 0);
    last = now;
  };
  const timer = setInterval(sample, 1000);
  const cpu0 = machineSeconds();
  const start = performance.now();
  try {
    await step('npm', ['test', '--', ...jestArgs], folder, `${folder}-test.log`);
  } finally {
    clearInterval(timer);
  }
  const wallS = (performance.now() - start) / 1000;
  sample();
  const cpuS = machineSeconds() - cpu0;
  const counted = Object.entries(byClass).reduce((sum, [cls, s]) => sum + (cls === REST ? 0 : s), 0);
  byClass[REST] = cpuS - counted;
  return { wallS, cpuS, byClass };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const root = path.resolve(__dirname, '..', '..');
  const commits = new Map(
    (options.base ? [options.base, options.ref] : [options.ref]).map((ref) => [ref, commitOf(root, ref)]),
  );
  const refs = [...commits.keys()];
  if (options.base && commits.get(options.base) === commits.get(options.ref)) {
    throw new Error(`--base ${options.base} and --ref ${options.ref} are one commit: nothing to compare\n${USAGE}`);
  }
  for (const [ref, commit] of commits) progress(`${ref}: ${commit}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'test-time-'));
  const runs = new Map<string, Run[]>(refs.map((ref) => [ref, []]));
  try {
    for (let run = 1; run <= options.runs; run++) {
      for (const ref of run % 2 === 0 ? [...refs].reverse() : refs) {
        const folder = path.join(work, `${ref.replace(/\W/g, '_')}-${run}`);
        progress(`${ref}, run ${run}/${options.runs}: cloning and installing (not timed)`);
        await cleanClone(root, commits.get(ref)!, folder);
        progress(`${ref}, run ${run}/${options.runs}: npm test`);
        const result = await timedTest(folder, options.jestArgs);
        progress(`${ref}, run ${run}/${options.runs}: ${result.wallS.toFixed(1)} s, ${result.cpuS.toFixed(0)} core-s`);
        runs.get(ref)!.push(result);
        fs.rmSync(folder, { recursive: true, force: true });
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const medianOf = (ref: string, pick: (run: Run) => number) => median(runs.get(ref)!.map(pick));
  const rows = [['', ...refs.map((ref) => `${ref} (median of ${options.runs})`)]];
  rows.push(['npm test, wall s', ...refs.map((ref) => medianOf(ref, (r) => r.wallS).toFixed(1))]);
  rows.push(['machine CPU, core-s', ...refs.map((ref) => medianOf(ref, (r) => r.cpuS).toFixed(0))]);
  for (const cls of [...CLASSES.map(([name]) => name), REST]) {
    rows.push([`  ${cls}`, ...refs.map((ref) => medianOf(ref, (r) => r.byClass[cls] ?? 0).toFixed(0))]);
  }
  console.log(table(rows));
  if (options.base) {
    const ratio = medianOf(options.ref, (r) => r.wallS) / medianOf(options.base, (r) => r.wallS);
    console.log(`\n${options.ref} / ${options.base}, wall: ${ratio.toFixed(3)}×`);
  }
  console.log(`goal: npm test in at most 360 s on the 2-core machine`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
