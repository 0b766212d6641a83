import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import YAML from 'yaml';
import { type Scratchpad, ScratchpadSchema } from '../core/scratchpad/scratchpad';
import { Agents } from './agents';

/** The scratchpad with keys in snapshot order (task state first, then the five sections). */
export function orderedScratchpad(state: Scratchpad): Scratchpad {
  return ScratchpadSchema().parse(state);
}

/** A snapshot's YAML: block style, keys in schema order. */
export function snapshotYaml(state: Scratchpad): string {
  return YAML.stringify(orderedScratchpad(state), { lineWidth: 0 });
}

/** A snapshot's cycle name: the start time as `YYYYMMDD_HHMMSS` (UTC), prefixed with the cycle number. */
export function snapshotPrefix(n: number, start: Date): string {
  const stamp = start.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `${String(n).padStart(4, '0')}_${stamp}`;
}

/**
 * Writes `<cycle>_before.yaml` and `<cycle>_after.yaml` for every finished cycle of an agent and
 * `active.yaml` for the latest, all from histories: no worker needs to run.
 */
export async function writeSnapshots(client: Client, agentId: string, outDir: string): Promise<string[]> {
  await fs.mkdir(outDir, { recursive: true });
  const written: string[] = [];
  let active: Scratchpad | undefined;
  const agents = new Agents(client);
  for (const cycle of await agents.listCycles(agentId)) {
    const states = await agents.cycleStates(cycle.workflowId, cycle.runId);
    const prefix = snapshotPrefix(cycle.n, cycle.startTime);
    const write = async (name: string, state: Scratchpad) => {
      const file = path.join(outDir, name);
      await fs.writeFile(file, snapshotYaml(state));
      written.push(file);
    };
    await write(`${prefix}_before.yaml`, states.input.before);
    if (states.result) {
      await write(`${prefix}_after.yaml`, states.result.after);
      active = { ...states.result.after, last_updated: (cycle.closeTime ?? new Date()).toISOString() };
    }
  }
  // The running agent's memo is authoritative: it includes changes made between cycles (enqueue, inject).
  active = (await agents.memo(agentId))?.scratchpad ?? active;
  if (active) {
    const file = path.join(outDir, 'active.yaml');
    await fs.writeFile(file, snapshotYaml(active));
    written.push(file);
  }
  return written;
}
