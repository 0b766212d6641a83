/**
 * What the bubblewrap sandbox costs a `shell` call: `echo hi` and `ls` through the shell tool, confined and with
 * the argument guard only (SCRATCHPAD_SHELL_UNCONFINED), interleaved; medians and their ratio.
 * Run after `npm run build`: node dist/bench/shell-confinement.js [runs]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runToolCall } from '../src/activities/tools';
import type { ToolOptions } from '../src/activities/tools/types';
import { formatMs, measureInterleaved, median, type Mode } from './measure';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 30);
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-shell-'));
  const base: ToolOptions = {
    sandboxRoot,
    shellAllow: ['echo', 'ls'],
    shellTimeoutMs: 10_000,
    fetchAllowHosts: [],
    fetchMaxBytes: 1024,
  };
  const mode = (label: string, command: string, shellUnconfined: boolean): Mode<{ ms: number }> => ({
    label,
    runOnce: async (run) => {
      const started = performance.now();
      const observation = await runToolCall(
        { cycleId: 'bench', step: run, name: 'shell', args: { command } },
        { ...base, shellUnconfined },
      );
      if (!observation.ok) throw new Error(`${label}: ${observation.error}`);
      return { ms: performance.now() - started };
    },
  });
  const modes = [
    mode('echo, argument guard', 'echo hi', true),
    mode('echo, bubblewrap', 'echo hi', false),
    mode('ls, argument guard', 'ls', true),
    mode('ls, bubblewrap', 'ls', false),
  ];
  try {
    const samples = await measureInterleaved(modes, runs);
    const medians = samples.map((list) => median(list.map((sample) => sample.ms)));
    const lines = [
      `shell call latency, median of ${runs} interleaved runs`,
      '| mode | ms | × guard only |',
      '|---|---:|---:|',
    ];
    modes.forEach((each, index) => {
      const baseline = medians[index - (index % 2)]!;
      lines.push(`| ${each.label} | ${formatMs(medians[index]!)} | ${(medians[index]! / baseline).toFixed(2)} |`);
    });
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    fs.rmSync(sandboxRoot, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
