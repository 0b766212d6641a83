import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Author, BoardEntry } from '../../core/research/board';
import type { Usage } from '../../core/cycle/model';
import type { ResearchStatus } from '../../core/research/run';

/** A write submitted to the supervisor's `write` update: who writes, and a draft the board validates. */
export interface WriteRequest {
  author: Author;
  /** `{ type, body }`, parsed by the board's schemas: untrusted until then. */
  draft: unknown;
  /** A worker's model usage by model, counted toward the run when this write ends its investigation. */
  usageByModel?: Record<string, Usage>;
  /** A worker's capability token (design.md, Writers prove who they are): its writes are refused without it. */
  token?: string;
}

/** The entry the board appended: the draft, or UNVERIFIED with the reason when a VERIFIED claim failed its check. */
export interface WriteResult {
  entry: BoardEntry;
}

/** Every accepted entry, in order. */
export const boardQuery = defineQuery<BoardEntry[]>('board');
/** Facts by state, active workers, outcome. */
export const researchStatusQuery = defineQuery<ResearchStatus>('status');
/** Appends one entry if the board's rules allow it; a refusal names the role, the type and the rule. */
export const writeUpdate = defineUpdate<WriteResult, [WriteRequest]>('write');
/** Asks for the answer now: the supervisor attempts SYNTHESIS through the gate, refused while any fact is open. */
export const synthesizeUpdate = defineUpdate<WriteResult, []>('synthesize');
/** A user directive: appended as USER_DIRECTIVE, read into STRATEGY at the next evaluation. */
export const researchDirectiveSignal = defineSignal<[{ text: string; by?: string }]>('directive');
