import { type BoardEntry, ENTRY_TYPES } from './board';
import type { ResearchStatus } from './research';

/** One line per entry: what the CLI prints as entries land, and what the Web UI's details list. */
export function entryLine(entry: BoardEntry): string {
  const who = `${entry.author.role}:${entry.author.id.split('/').slice(-2).join('/')}`;
  const b = entry.body as Record<string, unknown>;
  const fact = 'entity' in b ? `${String(b.entity)} / ${String(b.field)}` : '';
  const detail: Record<BoardEntry['type'], () => string> = {
    STRATEGY: () => `goal: ${String(b.goal).replace(/\n/g, ' ')}`,
    PENDING: () => `${fact} → ${String(b.assignedTo)}`,
    VERIFIED: () => `${fact} = ${String(b.value)} (${String(b.sourceUrl)})`,
    UNVERIFIED: () => `${fact}: ${String(b.reason)}`,
    FAILED_URL: () => `${fact}: ${String(b.url)} ${String(b.failureReason)}`,
    TOMBSTONE: () => `${fact}: ${String(b.url)} ${String(b.failureReason)}`,
    USER_DIRECTIVE: () => String(b.text),
    SYNTHESIS: () => `cites ${(b.citations as string[]).join(', ')}`,
  };
  return `${entry.id} ${entry.type} [${who}] ${detail[entry.type]()}`;
}

/** A STRATEGY's lists under its entry line: what the supervisor planned, or what the user gave. */
export function strategyLines(entry: BoardEntry): string[] {
  if (entry.type !== 'STRATEGY') return [];
  const { entities, fields, assigned } = entry.body;
  return [
    `  entities: ${entities.join(', ')}`,
    `  fields: ${fields.join(', ')} (${assigned.length} ${assigned.length === 1 ? 'fact' : 'facts'})`,
  ];
}

/** The board grouped by entry type, in Markdown, with the run's status on top (the Web UI's current details). */
export function renderBoard(entries: readonly BoardEntry[], status: ResearchStatus): string {
  const head = `**research ${status.runId}**: ${status.outcome}, ${status.entries} entries, ${status.activeWorkers.length} workers active`;
  const sections = ENTRY_TYPES.flatMap((type) => {
    const ofType = entries.filter((entry) => entry.type === type);
    return ofType.length === 0 ? [] : [`### ${type}\n${ofType.map((entry) => `- ${entryLine(entry)}`).join('\n')}`];
  });
  const missing = status.missing.length > 0 ? [`### missing\n${status.missing.map((m) => `- ${m}`).join('\n')}`] : [];
  return [head, ...sections, ...missing].join('\n\n').slice(0, 20_000);
}
