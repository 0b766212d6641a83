import { ContentCache, type EntryContent } from './content-cache';
import type { EntryInfo, ObservationStore } from './entry';
import { MemoryObservationStore } from './memory-store';

/** Default offload threshold (design.md, Offloading), in bytes of an observation's JSON. */
export const DEFAULT_OFFLOAD_BYTES = 4096;

/** What tool activities need to offload, read and reference observations. */
export interface ObservationRuntime {
  store: ObservationStore;
  cache: ContentCache;
  /** Observations whose JSON is larger are replaced by a synthetic observation. */
  offloadBytes: number;
}

/** A runtime over `store`, or over an in-process memory store when none is configured. */
export function createObservationRuntime(
  store: ObservationStore = new MemoryObservationStore(),
  offloadBytes = DEFAULT_OFFLOAD_BYTES,
): ObservationRuntime {
  return { store, cache: new ContentCache(), offloadBytes };
}

/** An entry's content, decoded once and then served from the cache. */
export async function loadContent(runtime: ObservationRuntime, entry: EntryInfo): Promise<EntryContent | undefined> {
  const cached = runtime.cache.get(entry.id);
  if (cached !== undefined) return cached;
  const content = await runtime.store.content(entry);
  return content === undefined ? undefined : runtime.cache.set(entry.id, content);
}
