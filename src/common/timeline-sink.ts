import { type Sinks, proxySinks } from '@temporalio/workflow';
import type { Scratchpad } from '../core/scratchpad/scratchpad';

/** The scratchpad after one iteration, reported to a sink so a replay of the history can recover it. */
export interface TimelineEntry {
  iteration: number;
  label: string;
  state: Scratchpad;
}

export interface TimelineSinks extends Sinks {
  timeline: { iteration(entry: TimelineEntry): void };
}

/** Sink calls issue no commands, so adding or removing them never breaks a saved history. */
export const { timeline } = proxySinks<TimelineSinks>();
