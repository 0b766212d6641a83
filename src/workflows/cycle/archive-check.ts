import { CancellationScope, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { archivePointerIds } from '../../core/scratchpad/budget';
import { appendNote } from '../../core/scratchpad/update';
import type { CycleRun } from './cycle-run';

// A local activity: GC is quick housekeeping on the worker's own store, not worth a task queue round trip per cycle.
const { gcObservations } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

/** The note that tells the model, and whoever reads the memory, that archived content cannot be read back. */
export function missingArchivesNote(ids: readonly string[]): string {
  return (
    `[ARCHIVE] missing from the observation store: ${ids.join(', ')}; ` +
    'the memory these pointers name cannot be read back, so do not rely on it'
  );
}

/**
 * Deletes expired observation entries (design.md, Lifetime and isolation) and checks that the store holds what the
 * memory's archive pointers name: the ids it lacks are noted once for the model and returned for the result.
 */
export async function collectAndCheckArchives(run: CycleRun): Promise<string[]> {
  const { agentId, before } = run.input;
  const archiveIds = archivePointerIds(before);
  // A cancel that lands during a local activity takes effect at the next await: cancelled mid-way, a local activity
  // leaves no marker, and a replay of that history (a query of the closed cycle) would not find the cycle's end where
  // the first run put it.
  const { missingArchives } = await CancellationScope.nonCancellable(() =>
    gcObservations({ agentId, cycleId: run.cycleId, archiveIds }),
  );
  if (missingArchives.length > 0) {
    const note = missingArchivesNote(missingArchives);
    if (!run.state.notes.includes(note)) run.state = { ...run.state, notes: appendNote(run.state.notes, note) };
  }
  return missingArchives;
}
