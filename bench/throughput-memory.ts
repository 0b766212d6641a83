import type { Client } from '@temporalio/client';
import { mapLimited, progress } from './measure';
import { type BenchWorkers, agentCycle, floorCycle } from './throughput-workers';

/** Heap growth per entity a worker keeps cached after its one cycle. */
export interface IdleMemory {
  bytesEach: number;
  /** Entities the worker kept cached (their finished children leave the cache). */
  cached: number;
}

const WARM_UP = 10;

function heapBytes(): number {
  global.gc?.();
  global.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/**
 * Runs `count` new entities of `shape` one cycle each on a worker that runs workflows on this thread, then divides
 * the heap's growth by the entities left cached. The throughput workers run workflows on a worker thread, whose heap
 * `process.memoryUsage()` does not see; this one shares the process's heap. A warm-up round first creates the
 * workflow context and loads the shared modules, which every worker pays once.
 */
export async function idleMemory(
  client: Client,
  workers: BenchWorkers,
  shape: 'agent' | 'floor',
  count: number,
  stamp: string,
): Promise<IdleMemory> {
  const { worker, taskQueue } = await workers.inThread(shape);
  const running = worker.run();
  const cycle = shape === 'agent' ? agentCycle : floorCycle;
  const batch = (tag: string, size: number) =>
    mapLimited(
      Array.from({ length: size }, (_, index) => `mem-${shape}-${stamp}-${tag}-${index}`),
      50,
      (id) => cycle(client, taskQueue, id),
      (done) => progress(`idle ${shape} x${size}: ${done} done`),
    );
  try {
    await batch('warm', WARM_UP);
    const before = heapBytes();
    const cachedBefore = worker.getStatus().numCachedWorkflows;
    await batch('idle', count);
    const grown = heapBytes() - before;
    const cached = worker.getStatus().numCachedWorkflows - cachedBefore;
    return { bytesEach: grown / cached, cached };
  } finally {
    worker.shutdown();
    await running;
  }
}
