import { BOARD_LIMITS, type BoardEntry, type EntryBody, type EntryOf, type FactView, facts } from './board';

/**
 * The answer over VERIFIED facts only: each claim with its citation, the page's own words that state it, and the
 * URL, so a person can check it at a glance. Cut to the answer's cap, quotes first, never a claim.
 */
export function composeAnswer(question: string, entries: readonly BoardEntry[]): EntryBody<'SYNTHESIS'> {
  const verified = facts(entries).flatMap((fact) => (fact.latest?.type === 'VERIFIED' ? [fact.latest] : []));
  const claim = (entry: EntryOf<'VERIFIED'>) =>
    `- ${entry.body.entity} ${entry.body.field}: ${entry.body.value} [${entry.id}]`;
  const quoted = (entry: EntryOf<'VERIFIED'>) => {
    const quote = entry.body.quote?.replace(/\s+/g, ' ');
    return `${claim(entry)}${quote ? ` "${quote}"` : ''} (${entry.body.sourceUrl})`;
  };
  let answer = `${question}\n${verified.map(quoted).join('\n')}`;
  if (answer.length > BOARD_LIMITS.answer) answer = `${question}\n${verified.map(claim).join('\n')}`;
  return { answer: answer.slice(0, BOARD_LIMITS.answer), citations: verified.map((entry) => entry.id) };
}

export function describeMissing(views: readonly FactView[]): string[] {
  return views.filter((fact) => fact.state !== 'VERIFIED').map((f) => `${f.entity} / ${f.field}: ${f.state}`);
}
