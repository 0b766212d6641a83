import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { TraceEntry } from '../../core/cycle/input';
import type { Scratchpad } from '../../core/scratchpad/scratchpad';

/** The scratchpad the cycle started from (seed 000's `<cycle>_before.yaml`). */
export const beforeQuery = defineQuery<Scratchpad>('before');
/** The live scratchpad, as of the last iteration. */
export const currentQuery = defineQuery<Scratchpad>('current');
/** The result state once the cycle has ended (seed 000's `<cycle>_after.yaml`), null before. */
export const afterQuery = defineQuery<Scratchpad | null>('after');
/** Seed 001's trace: one entry per model call. */
export const traceQuery = defineQuery<TraceEntry[]>('trace');
/** A user directive: the model sees it as `USER DIRECTIVE` from the cycle's next iteration on. */
export const directiveSignal = defineSignal<[string]>('directive');
