import type { MemoryQuestion } from './memory-data';

/**
 * Text as answers are compared: accents and case folded, punctuation turned into spaces, the articles a, an and the
 * dropped, runs of spaces collapsed. No judge model: a reply is right when it contains an accepted answer.
 */
export function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter((word) => word && !['a', 'an', 'the'].includes(word))
    .join(' ');
}

/** Whether the normalised reply contains one of `accepted`, normalised, as whole words. */
export function containsAnswer(reply: string, accepted: readonly string[]): boolean {
  const padded = ` ${normalise(reply)} `;
  return accepted.some((answer) => {
    const wanted = normalise(answer);
    return wanted !== '' && padded.includes(` ${wanted} `);
  });
}

/** One question's reply, scored. */
export interface Scored {
  question: MemoryQuestion;
  reply: string;
  correct: boolean;
  /** An updated fact answered with its old value (and not the new one). */
  stale: boolean;
  /** Whether an accepted answer was in what the arm answered from (the memory, the transcript window). */
  inPrompt: boolean;
  error?: string;
}

export function score(question: MemoryQuestion, reply: string, error?: string, shown = ''): Scored {
  const correct = containsAnswer(reply, question.answers);
  const stale = !correct && containsAnswer(reply, question.stale ?? []);
  const inPrompt = containsAnswer(shown, question.answers);
  return { question, reply, correct, stale, inPrompt, ...(error && { error }) };
}
