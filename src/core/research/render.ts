import { type BoardEntry, ENTRY_TYPES } from './board';
import type { ResearchStatus } from './run';
import type { ResearchApproval } from './approvals';

/** A worker's id without its run's prefix: `<entity>/<field>` names it within the run. */
function shortId(id: string): string {
  return id.split('/').slice(-2).join('/');
}

/** One line per entry: what the CLI prints as entries land, and what the Web UI's details list. */
export function entryLine(entry: BoardEntry): string {
  const who = `${entry.author.role}:${shortId(entry.author.id)}`;
  const b = entry.body as Record<string, unknown>;
  const fact = 'entity' in b ? `${String(b.entity)} / ${String(b.field)}` : '';
  const detail: Record<BoardEntry['type'], () => string> = {
    STRATEGY: () => `goal: ${String(b.goal).replace(/\n/g, ' ')}`,
    PENDING: () => `${fact} → ${String(b.assignedTo)}${b.searchQuery ? `, new search: ${String(b.searchQuery)}` : ''}`,
    VERIFIED: () => `${fact} = ${String(b.value)}${b.quote ? ` "${String(b.quote)}"` : ''} (${String(b.sourceUrl)})`,
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

/** Model-written text as literal Markdown: one line, no markup, links or HTML of its own in the Web UI. */
function literal(text: unknown, max = 300): string {
  const line = String(text).replace(/\s+/g, ' ').trim();
  const capped = line.length > max ? `${line.slice(0, max)}…` : line;
  return capped.replace(/[\\`*_[\]()<>#|~!]/g, (char) => `\\${char}`);
}

/** One entry under its type's heading: the type is the heading's, so the line starts with what differs. */
function boardLine(entry: BoardEntry): string {
  const b = entry.body as Record<string, unknown>;
  const { role, id } = entry.author;
  const by = role === 'worker' ? shortId(id) : role === 'user' ? `user ${id}` : role;
  const fact = 'entity' in b ? `${literal(b.entity)} / ${literal(b.field)}` : '';
  const detail: Record<BoardEntry['type'], () => string> = {
    STRATEGY: () => `goal: ${literal(b.goal)}`,
    PENDING: () =>
      `${fact} → ${literal(shortId(String(b.assignedTo)))}${b.searchQuery ? `, new search: ${literal(b.searchQuery)}` : ''}`,
    VERIFIED: () =>
      `${fact} = **${literal(b.value)}**${b.quote ? ` “${literal(b.quote)}”` : ''} from ${literal(b.sourceUrl)}`,
    UNVERIFIED: () => `${fact}: ${literal(b.reason)}`,
    FAILED_URL: () => `${fact}: ${literal(b.url)}, ${literal(b.failureReason)}`,
    TOMBSTONE: () => `${literal(b.url)}, ${literal(b.failureReason)}`,
    USER_DIRECTIVE: () => literal(b.text),
    SYNTHESIS: () =>
      `cites ${(b.citations as string[]).map((id) => literal(id)).join(', ')}: ${literal(b.answer, 2000)}`,
  };
  return `- **${entry.id}** ${detail[entry.type]()} · _${literal(by)}_`;
}

/**
 * The board grouped by entry type, in Markdown, with the run's status on top (the Web UI's current details). Every
 * model-written field is escaped: a hostile value cannot restyle the page or add links.
 */
export function renderBoard(entries: readonly BoardEntry[], status: ResearchStatus): string {
  return boardSections(entries, status).join('\n\n').slice(0, 20_000);
}

/** {@link renderBoard}'s sections, the status line first, for a caller that caps them by whole sections. */
export function boardSections(entries: readonly BoardEntry[], status: ResearchStatus): string[] {
  const head = `**research ${literal(status.runId)}**: ${status.outcome}, ${status.entries} entries, ${status.activeWorkers.length} workers active`;
  const sections = ENTRY_TYPES.flatMap((type) => {
    const ofType = entries.filter((entry) => entry.type === type);
    return ofType.length === 0 ? [] : [`### ${type} (${ofType.length})\n${ofType.map(boardLine).join('\n')}`];
  });
  const missing =
    status.missing.length > 0 ? [`### missing\n${status.missing.map((m) => `- ${literal(m)}`).join('\n')}`] : [];
  const { mirror } = status;
  const mirrorLine = mirror
    ? [`- mirror: ${mirror.state}, ${mirror.mirrored} entries mirrored, ${mirror.pending} not`]
    : [];
  const notes = [...status.notes.map((note) => `- ${literal(note)}`), ...mirrorLine];
  // Notes come first: a dropped directive or a mirror outage must show, however long the board is.
  const noted = notes.length > 0 ? [`### notes\n${notes.join('\n')}`] : [];
  // A call waiting for a person comes before them: the run does not go on for that fact until someone decides.
  const waiting = status.approvals?.length ? [awaitingLines(status.approvals)] : [];
  return [head, ...waiting, ...noted, ...sections, ...missing];
}

/** Calls shown by line in the details; `status` lists every one. */
const SHOWN_WAITS = 10;

/** The calls workers' cycles wait on, the oldest first, within a few lines however many wait. */
function awaitingLines(calls: readonly ResearchApproval[]): string {
  const more = calls.length > SHOWN_WAITS ? [`- … and ${calls.length - SHOWN_WAITS} more awaiting approval`] : [];
  return [...calls.slice(0, SHOWN_WAITS).map(awaitingLine), ...more].join('\n');
}

/** One call a worker's cycle waits on, as the Web UI's details show it: the fact, the call, where to decide it. */
function awaitingLine(call: ResearchApproval): string {
  const fact = call.entity !== undefined ? `${literal(call.entity)} / ${literal(call.field)}` : literal(call.workerId);
  return (
    `- **Awaiting approval:** ${fact}: call ${literal(call.callId)} ${literal(call.tool)} ${literal(call.args)} ` +
    `in ${literal(call.cycleId)} (decide with its \`decide\` update; denied at ${literal(call.expiresAt)} unless decided)`
  );
}
