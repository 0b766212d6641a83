import { BOARD_LIMITS, type BoardEntry, type EntryOf } from './board';
import type { ModelRequest } from '../cycle/model';

/*
 * A tombstone leads to a new search (design.md, Transitions): the supervisor writes a new query on the PENDING entry
 * it re-delegates, written by its model when it has one, else a deterministic variant of the last query that
 * excludes the tombstoned hosts. The re-delegated worker is briefed with it.
 */

/** Hosts of the URLs tombstoned for one fact, in order. */
export function tombstonedHosts(entries: readonly BoardEntry[], entity: string, field: string): string[] {
  const hosts = entries.flatMap((entry) => {
    if (entry.type !== 'TOMBSTONE' || entry.body.entity !== entity || entry.body.field !== field) return [];
    try {
      return [new URL(entry.body.url).host];
    } catch {
      return [];
    }
  });
  return [...new Set(hosts)];
}

/** The query the fact's last worker searched with (its FAILED_URL records it), or the fact itself. */
export function lastQuery(entries: readonly BoardEntry[], entity: string, field: string): string {
  const failed = [...entries]
    .reverse()
    .find(
      (entry): entry is EntryOf<'FAILED_URL'> =>
        entry.type === 'FAILED_URL' && entry.body.entity === entity && entry.body.field === field,
    );
  return failed?.body.searchQuery ?? `${entity} ${field}`;
}

/** `query` with a `-site:` exclusion for each host it does not exclude yet, within the board's cap on queries. */
export function excludingHosts(query: string, hosts: readonly string[]): string {
  const words = query.trim().replace(/\s+/g, ' ');
  const missing = hosts.filter((host) => !words.toLowerCase().split(' ').includes(`-site:${host.toLowerCase()}`));
  const exclusions = missing.map((host) => `-site:${host}`).join(' ');
  const room = BOARD_LIMITS.query - exclusions.length - 1;
  const base = [...words].slice(0, Math.max(room, 0)).join('').trim();
  return [base, exclusions].filter(Boolean).join(' ').slice(0, BOARD_LIMITS.query);
}

/** The deterministic new query for a tombstoned fact: the last query, excluding every host tombstoned for it. */
export function tombstoneQuery(entries: readonly BoardEntry[], entity: string, field: string): string {
  return excludingHosts(lastQuery(entries, entity, field), tombstonedHosts(entries, entity, field));
}

/** The first line of the supervisor's query request: scripted models route on it. */
export function queryRoute(entity: string, field: string): string {
  return `New search query for ${entity} / ${field}`;
}

/** The supervisor's model request for a new query: plain text back, no tool. */
export function queryRequest(
  entries: readonly BoardEntry[],
  fact: { entity: string; field: string },
  model: string,
): ModelRequest {
  const { entity, field } = fact;
  const tombstones = entries.flatMap((entry) =>
    entry.type === 'TOMBSTONE' && entry.body.entity === entity && entry.body.field === field
      ? [`- ${entry.body.url}: ${entry.body.failureReason}`]
      : [],
  );
  const content = [
    queryRoute(entity, field),
    '',
    `The last search was: ${lastQuery(entries, entity, field)}`,
    'Its sources failed and are tombstoned (never fetched again in this run):',
    ...tombstones,
    '',
    'Reply with one new web search query on one line, nothing else. Do not search the tombstoned hosts again.',
  ].join('\n');
  return {
    system: 'research_query',
    messages: [{ role: 'user', content: content.slice(0, BOARD_LIMITS.answer) }],
    tools: [],
    toolChoice: 'auto',
    model,
  };
}

/**
 * The model's reply as the new query: its first non-blank line, unquoted, with the tombstoned hosts excluded
 * whatever it says; undefined when it gave none, so the deterministic variant stands.
 */
export function queryFromReply(text: string, hosts: readonly string[]): string | undefined {
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim().replace(/^["'`]+|["'`]+$/g, ''))
    .find((candidate) => candidate !== '');
  if (!line) return undefined;
  return excludingHosts(line, hosts);
}
