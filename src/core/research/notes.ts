import { z } from 'zod';
import { MAX_RUN_NOTES } from './limits';
import { getterOf } from '../shareable';

/**
 * What a run tells its user beside the board: a directive it dropped and why, the mirror giving up or catching up.
 * One note per kind (`key`): a flood of one kind counts up on its note instead of adding lines.
 */
export interface RunNote {
  key: string;
  text: string;
  /** How many times it happened; the text is the latest. */
  count: number;
}

const NOTE_CHARS = 400;

export const RunNoteSchema = getterOf(
  z.object({ key: z.string().min(1).max(60), text: z.string().max(NOTE_CHARS), count: z.number().int().min(1) }),
);

/** `notes` with `text` under `key`: counted up when the key is there (moved last), else added; the oldest go first. */
export function addNote(notes: readonly RunNote[], key: string, text: string): RunNote[] {
  const previous = notes.find((note) => note.key === key);
  const others = notes.filter((note) => note.key !== key);
  const note = { key, text: text.slice(0, NOTE_CHARS), count: (previous?.count ?? 0) + 1 };
  return [...others, note].slice(-MAX_RUN_NOTES);
}

/** The notes as lines for people: `text (×count)` when it happened more than once. */
export function noteLines(notes: readonly RunNote[]): string[] {
  return notes.map((note) => (note.count > 1 ? `${note.text} (×${note.count})` : note.text));
}
