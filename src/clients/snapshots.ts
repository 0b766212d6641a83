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

/** One snapshot file's name and the state it holds. */
export interface Snapshot {
  name: string;
  state: Scratchpad;
}

/**
 * `<cycle>_before.yaml` and `<cycle>_after.yaml` for every finished cycle of an agent and `active.yaml` for the
 * latest, in that order, all from histories: no worker needs to run.
 */
export async function agentSnapshots(client: Client, agentId: string): Promise<Snapshot[]> {
  const snapshots: Snapshot[] = [];
  let active: Scratchpad | undefined;
  const agents = new Agents(client);
  for (const cycle of await agents.listCycles(agentId)) {
    const states = await agents.cycleStates(cycle.workflowId, cycle.runId);
    const prefix = snapshotPrefix(cycle.n, cycle.startTime);
    snapshots.push({ name: `${prefix}_before.yaml`, state: states.input.before });
    if (states.result) {
      snapshots.push({ name: `${prefix}_after.yaml`, state: states.result.after });
      active = { ...states.result.after, last_updated: (cycle.closeTime ?? new Date()).toISOString() };
    }
  }
  // The running agent's memo is authoritative: it includes changes made between cycles (enqueue, inject).
  active = (await agents.memo(agentId))?.scratchpad ?? active;
  if (active) snapshots.push({ name: 'active.yaml', state: active });
  return snapshots;
}

/** Writes {@link agentSnapshots} as files in `outDir`; returns their paths. */
export async function writeSnapshots(client: Client, agentId: string, outDir: string): Promise<string[]> {
  await fs.mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const { name, state } of await agentSnapshots(client, agentId)) {
    const file = path.join(outDir, name);
    await fs.writeFile(file, snapshotYaml(state));
    written.push(file);
  }
  return written;
}
