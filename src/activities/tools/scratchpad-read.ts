import { z } from 'zod';
import type { Observation, ToolCallInput } from '../../core/tools/observation';
import { TOOL_ARGS } from '../../core/tools/catalogue';
import type { EntryInfo, ObservationStore } from '../observations/entry';
import { ReadError } from '../observations/read-error';
import { readBinary, readText } from '../observations/read-modes';
import { type ObservationRuntime, loadContent } from '../observations/runtime';
import { TextView } from '../observations/text-view';

/**
 * Per-cycle isolation (design.md, Lifetime and isolation): a cycle reads the entries it stored. Entries that never
 * expire and name an agent (archives of its memory) are readable by every cycle of that agent.
 */
export function isReadableBy(entry: EntryInfo, call: Pick<ToolCallInput, 'cycleId' | 'agentId'>): boolean {
  if (entry.turnId === call.cycleId) return true;
  return entry.expiresAt === null && entry.agentId !== null && entry.agentId === call.agentId;
}

function missing(id: string): Observation {
  return {
    ok: false,
    error:
      `no scratchpad entry ${id}: it was never stored, has expired, or is in an observation store this worker ` +
      'does not use; reading it again will not help',
  };
}

/** The archive ids among `ids` that the cycle cannot read from `store`: lost, or written to another store. */
export async function missingArchives(
  store: ObservationStore,
  cycle: Pick<ToolCallInput, 'cycleId' | 'agentId'>,
  ids: readonly string[],
): Promise<string[]> {
  const missing: string[] = [];
  for (const id of ids) {
    const entry = await store.info(id);
    if (entry === undefined || !isReadableBy(entry, cycle)) missing.push(id);
  }
  return missing;
}

/** `scratchpad_read`: a slice of a stored observation, by mode; errors are `ok: false` observations. */
export async function scratchpadRead(call: ToolCallInput, runtime: ObservationRuntime): Promise<Observation> {
  const parsed = TOOL_ARGS.scratchpad_read().safeParse(call.args);
  if (!parsed.success) {
    return { ok: false, error: `invalid arguments for scratchpad_read:\n${z.prettifyError(parsed.error)}` };
  }
  const args = parsed.data;
  const id = args.scratchpad_id;
  const entry = await runtime.store.info(id);
  if (entry === undefined) return missing(id);
  if (!isReadableBy(entry, call)) {
    return {
      ok: false,
      error: `scratchpad entry ${id} belongs to another cycle; a cycle can read only the entries it stored`,
    };
  }
  const content = await loadContent(runtime, entry);
  if (content === undefined) return missing(id);
  try {
    const slice =
      content instanceof TextView ? readText(content, args, 2 * runtime.offloadBytes) : readBinary(content, args);
    return {
      ok: true,
      scratchpad_id: id,
      kind: entry.kind,
      mode: args.mode ?? 'head',
      ...slice.fields,
      result: slice.result,
    };
  } catch (error) {
    if (error instanceof ReadError) return { ok: false, error: error.message };
    throw error;
  }
}
