import type { Observation } from '../../src/core/tools/observation';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { createObservationRuntime } from '../../src/activities/observations/runtime';
import { scratchpadRead } from '../../src/activities/tools/scratchpad-read';

/** A `scratchpad_read` with mode full of `content` stored by cycle `cycle-1`, over a memory store. */
export function createScratchpadRead(offloadBytes: number) {
  const store = new MemoryObservationStore();
  const runtime = createObservationRuntime(store, offloadBytes);
  const readFull = async (content: string): Promise<Observation> => {
    const entry = await store.put({ turnId: 'cycle-1', agentId: null, kind: 'text', content, ttlSeconds: 60 });
    const args = { scratchpad_id: entry.id, mode: 'full' };
    return scratchpadRead({ cycleId: 'cycle-1', step: 1, name: 'scratchpad_read', args }, runtime);
  };
  return { readFull };
}
