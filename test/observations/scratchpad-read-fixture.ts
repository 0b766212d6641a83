import type { Observation } from '../../src/core/observation';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { createObservationRuntime } from '../../src/activities/observations/runtime';
import { scratchpadRead } from '../../src/activities/tools/scratchpad-read';

/** A memory store and a `scratchpad_read` over it, as cycle `cycle-1` sees it. */
export function createScratchpadRead(offloadBytes: number) {
  const store = new MemoryObservationStore();
  const runtime = createObservationRuntime(store, offloadBytes);
  const read = (id: string, mode: string): Promise<Observation> =>
    scratchpadRead(
      { cycleId: 'cycle-1', step: 1, name: 'scratchpad_read', args: { scratchpad_id: id, mode } },
      runtime,
    );
  return { store, read };
}
