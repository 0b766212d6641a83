import type { temporal } from '@temporalio/proto';
import { type InjectedSinks, Worker } from '@temporalio/worker';
import { type Change, diffScratchpads } from '../core/scratchpad/diff';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { cycleStatesFromHistory } from './histories';
import type { TimelineEntry, TimelineSinks } from '../common/timeline-sink';
import { workflowWorkerOptions } from '../config/paths';

export interface TimelineStep extends TimelineEntry {
  changes: Change[];
}

/**
 * The scratchpad after every iteration of a finished cycle, recovered by replaying its history
 * against the workflow code (no server, no worker): the cycle reports each iteration to a sink.
 */
export async function replayTimeline(
  history: temporal.api.history.v1.IHistory,
  workflowId = 'timeline',
): Promise<{ before: Scratchpad; steps: TimelineStep[] }> {
  const entries: TimelineEntry[] = [];
  const sinks: InjectedSinks<TimelineSinks> = {
    timeline: {
      iteration: {
        fn: (_info, entry) => {
          entries.push(entry);
        },
        callDuringReplay: true,
      },
    },
  };
  await Worker.runReplayHistory({ ...workflowWorkerOptions(), sinks }, history, workflowId);
  const before = cycleStatesFromHistory(history).input.before;
  let previous = before;
  const steps = entries.map((entry) => {
    const step = { ...entry, changes: diffScratchpads(previous, entry.state) };
    previous = entry.state;
    return step;
  });
  return { before, steps };
}
