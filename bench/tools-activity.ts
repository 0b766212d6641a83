import type { Activities } from '../src/activities';
import type { Observation } from '../src/core/tools/observation';
import { type Mode, type Sample, timed } from './measure';
import type { ToolKind } from './tools-setup';

/** A mode of the activity level: a label, and the `runTool` it calls (activities of one worker configuration). */
export interface ActivityTarget {
  label: string;
  tool: string;
  runTool: Activities['runTool'];
}

/** Throws unless the observation is the echo of `message`: a failing tool must not pass for a fast one. */
export function assertEcho(label: string, observation: Observation, message: string): void {
  if (!observation.ok || !JSON.stringify(observation.result ?? null).includes(message)) {
    throw new Error(`${label}: expected an echo of "${message}", got ${JSON.stringify(observation).slice(0, 300)}`);
  }
}

let cycles = 0;

/**
 * `calls` calls of one tool, one after another, straight to the `runTool` activity function (no Temporal): the
 * envelope check, the registry lookup, the tool, and the observation stored in the SQLite store, as in a worker.
 */
async function callMany(target: ActivityTarget, calls: number): Promise<Sample> {
  // Each run is its own cycle: the store keeps one observation per cycle and step.
  const cycleId = `bench/tools/activity/${++cycles}`;
  const { ms } = await timed(async () => {
    for (let step = 1; step <= calls; step++) {
      const message = `ping ${step}`;
      const call = { cycleId, agentId: 'bench', step, name: target.tool, args: { message } };
      assertEcho(target.label, await target.runTool(call), message);
    }
  });
  return { ms };
}

/** One mode per target for {@link measureInterleaved}. */
export function activityModes(targets: readonly ActivityTarget[], calls: number): Mode<Sample>[] {
  return targets.map((target) => ({ label: target.label, runOnce: () => callMany(target, calls) }));
}

/** The first call of a fresh worker's `runTool`, timed: it lists every MCP server, starting the stdio one. */
export async function timeFirstCall(runTool: Activities['runTool'], kind: ToolKind): Promise<number> {
  const message = 'first call';
  const { ms, value } = await timed(() =>
    runTool({ cycleId: 'bench/tools/first-call', agentId: 'bench', step: 0, name: kind.tool, args: { message } }),
  );
  assertEcho(kind.label, value, message);
  return ms;
}
