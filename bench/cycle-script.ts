import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ScriptEntry } from '../src/activities/model/scripted';
import type { ToolOptions } from '../src/activities/tools/types';
import { type Scratchpad, defaultScratchpad, enqueueTasks } from '../src/core/scratchpad/scratchpad';
import type { ObservationStore } from '../src/activities/observations/entry';
import { openObservationStore } from '../src/activities/observations/open-store';

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

/** What `runTool` runs against: tool limits (`echo` touches none) and the observation store it writes every result to. */
export interface ToolSetup {
  tools: ToolOptions;
  /** The project's default store: a SQLite file. */
  observations: ObservationStore;
  close(): Promise<void>;
}

/** A sandbox and an observation store in a fresh temporary directory, removed by `close`. */
export function benchToolSetup(): ToolSetup {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-tools-'));
  const sandboxRoot = path.join(directory, 'sandbox');
  fs.mkdirSync(sandboxRoot);
  const observations = openObservationStore(path.join(directory, 'observations.db'));
  return {
    tools: { sandboxRoot, shellAllow: [], shellTimeoutMs: 5000, fetchAllowHosts: [], fetchMaxBytes: 1024 * 1024 },
    observations,
    async close() {
      await observations.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
