import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ScriptEntry } from '../src/activities/model/scripted';
import type { ToolOptions } from '../src/activities/tools/types';
import { type Scratchpad, defaultScratchpad, enqueueTasks } from '../src/core/scratchpad';

/** The scripted model's answers for a cycle of `iterations`: `echo` calls, then `done`. */
export function echoScript(iterations: number): ScriptEntry[] {
  const echoes = Array.from({ length: iterations - 1 }, (_, index) => ({
    tool: 'echo',
    args: { message: `ping ${index + 1}` },
  }));
  return [...echoes, { tool: 'done', args: { summary: `echoed ${iterations - 1} times` } }];
}

/** The before-state every benchmarked cycle starts from. */
export function benchScratchpad(): Scratchpad {
  return enqueueTasks(defaultScratchpad('Benchmark the cycle dispatcher'), ['Echo until told to stop']);
}

/** Tool limits for the benchmark; `echo` touches none of them, but `runTool` takes them. */
export function benchToolOptions(): ToolOptions {
  return {
    sandboxRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-sandbox-')),
    shellAllow: [],
    shellTimeoutMs: 5000,
    fetchAllowHosts: [],
    fetchMaxBytes: 1024 * 1024,
  };
}
