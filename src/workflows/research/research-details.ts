import type { BoardEntry } from '../../core/research/board';
import { boardSections } from '../../core/research/render';
import type { ResearchStatus } from '../../core/research/run';
import { outcomeLine, withinSections } from '../cycle/details-text';

/**
 * The research run's outcome in words, on one line: `complete: …` with the facts verified, `incomplete: …` with
 * what is missing, `running: …` while it runs.
 */
export function researchOutcomeLine(entries: readonly BoardEntry[], status: ResearchStatus): string {
  const verified = status.facts.filter((fact) => fact.state === 'VERIFIED').length;
  const facts = `${verified} of ${status.facts.length} facts verified`;
  if (status.outcome !== 'incomplete') return outcomeLine(status.outcome, `${facts}, ${status.entries} board entries`);
  const [first, ...others] = status.missing;
  const missing = first ? `; missing ${first}${others.length > 0 ? ` and ${others.length} more` : ''}` : '';
  const synthesis = entries.some((entry) => entry.type === 'SYNTHESIS') ? '' : ', no synthesis';
  return outcomeLine('incomplete', `${facts}${synthesis}${missing}`);
}

/**
 * The board by entry type under the outcome line (the Web UI's details: current while a worker runs, then the memo
 * at the end), complete section by section: a section that would pass the cap is left out whole, and named.
 */
export function researchDetails(entries: readonly BoardEntry[], status: ResearchStatus): string {
  const [head = '', ...sections] = boardSections(entries, status);
  return withinSections([`${researchOutcomeLine(entries, status)}\n\n${head}`, ...sections]);
}
