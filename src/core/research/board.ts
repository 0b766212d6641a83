import {
  type Author,
  type BoardEntry,
  type Draft,
  type EntryOf,
  type EntryType,
  type FactType,
  type Role,
  isFactType,
} from './board-schema';

export * from './board-schema';
export * from './evidence';

/** Where one entity/field fact stands: not in the strategy, assigned but unclaimed, or its latest fact entry. */
export type FactState = 'UNKNOWN' | 'ASSIGNED' | FactType;
export const FACT_STATES: readonly FactState[] = [
  'UNKNOWN',
  'ASSIGNED',
  'PENDING',
  'VERIFIED',
  'UNVERIFIED',
  'FAILED_URL',
  'TOMBSTONE',
];

/** Who may write each type at all (design.md, Who writes what). */
export const WRITERS: Record<EntryType, readonly Role[]> = {
  STRATEGY: ['supervisor'],
  PENDING: ['supervisor', 'worker'],
  VERIFIED: ['worker'],
  UNVERIFIED: ['worker'],
  FAILED_URL: ['worker'],
  TOMBSTONE: ['supervisor'],
  USER_DIRECTIVE: ['user'],
  SYNTHESIS: ['supervisor'],
};

/** The transitions (design.md): from which fact states a role may append each fact type. */
export const TRANSITIONS: Record<FactType, Partial<Record<Role, readonly FactState[]>>> = {
  // A worker claims its assigned fact; the supervisor re-delegates an unverified one or re-searches a tombstoned one.
  PENDING: { worker: ['ASSIGNED'], supervisor: ['UNVERIFIED', 'TOMBSTONE'] },
  VERIFIED: { worker: ['PENDING'] },
  UNVERIFIED: { worker: ['PENDING'] },
  FAILED_URL: { worker: ['PENDING'] },
  TOMBSTONE: { supervisor: ['FAILED_URL'] },
};

export type FactEntry = EntryOf<FactType>;

export interface FactView {
  entity: string;
  field: string;
  state: FactState;
  latest?: FactEntry;
}

export type Verdict = { ok: true } | { ok: false; rule: string; reason: string };

export function factKey(entity: string, field: string): string {
  return JSON.stringify([entity, field]);
}

export function latestStrategy(entries: readonly BoardEntry[]): EntryOf<'STRATEGY'> | undefined {
  return [...entries].reverse().find((entry): entry is EntryOf<'STRATEGY'> => entry.type === 'STRATEGY');
}

export function synthesisOf(entries: readonly BoardEntry[]): EntryOf<'SYNTHESIS'> | undefined {
  return entries.find((entry): entry is EntryOf<'SYNTHESIS'> => entry.type === 'SYNTHESIS');
}

/** The latest fact entry per fact: entries are never edited, a later one supersedes. */
export function latestFacts(entries: readonly BoardEntry[]): Map<string, FactEntry> {
  const latest = new Map<string, FactEntry>();
  for (const entry of entries) {
    if (!isFactType(entry.type)) continue;
    const fact = entry as FactEntry;
    latest.set(factKey(fact.body.entity, fact.body.field), fact);
  }
  return latest;
}

/** Every fact of the latest strategy (entities × fields) with its state. */
export function facts(entries: readonly BoardEntry[]): FactView[] {
  const strategy = latestStrategy(entries);
  if (!strategy) return [];
  const latest = latestFacts(entries);
  return strategy.body.entities.flatMap((entity) =>
    strategy.body.fields.map((field) => {
      const entry = latest.get(factKey(entity, field));
      return { entity, field, state: entry ? entry.type : 'ASSIGNED', ...(entry && { latest: entry }) };
    }),
  );
}

export function factState(entries: readonly BoardEntry[], entity: string, field: string): FactState {
  return facts(entries).find((fact) => fact.entity === entity && fact.field === field)?.state ?? 'UNKNOWN';
}

/** URLs under a TOMBSTONE: never fetched again in the run. */
export function tombstonedUrls(entries: readonly BoardEntry[]): string[] {
  return [...new Set(entries.flatMap((entry) => (entry.type === 'TOMBSTONE' ? [entry.body.url] : [])))];
}

/** Workers that have held a fact, in order: a re-delegation goes to a worker not among them. */
export function assigneesOf(entries: readonly BoardEntry[], entity: string, field: string): string[] {
  const strategy = entries.find((entry): entry is EntryOf<'STRATEGY'> => entry.type === 'STRATEGY');
  const first = strategy?.body.assigned.find((a) => a.entity === entity && a.field === field)?.worker;
  const later = entries.flatMap((entry) =>
    entry.type === 'PENDING' && entry.body.entity === entity && entry.body.field === field
      ? [entry.body.assignedTo]
      : [],
  );
  return [...new Set([...(first ? [first] : []), ...later])];
}

function refuse(author: Author, type: EntryType, rule: string, detail: string): Verdict {
  return { ok: false, rule, reason: `${author.role} ${author.id} may not write ${type}: [${rule}] ${detail}` };
}

/**
 * Whether `author` may append `draft` to the board as it stands: permission, transition, assignment, tombstone
 * and synthesis-gate rules. A refusal names the role, the type and the rule; nothing is appended.
 */
export function checkWrite(entries: readonly BoardEntry[], author: Author, draft: Draft): Verdict {
  const { type } = draft;
  if (synthesisOf(entries)) return refuse(author, type, 'closed', 'the run already has its SYNTHESIS');
  if (!WRITERS[type].includes(author.role)) {
    return refuse(author, type, 'permission', `${type} is written by ${WRITERS[type].join(' or ')} only`);
  }
  switch (draft.type) {
    case 'STRATEGY':
      return checkStrategy(entries, author, draft.body);
    case 'USER_DIRECTIVE':
      return latestStrategy(entries) ? { ok: true } : refuse(author, type, 'order', 'the run has no STRATEGY yet');
    case 'SYNTHESIS':
      return checkSynthesis(entries, author, draft.body);
    default:
      return checkFact(entries, author, draft);
  }
}

function checkStrategy(entries: readonly BoardEntry[], author: Author, body: Draft['body'] & object): Verdict {
  const strategy = body as EntryOf<'STRATEGY'>['body'];
  const previous = latestStrategy(entries);
  const lost = previous
    ? facts(entries).filter((f) => !strategy.entities.includes(f.entity) || !strategy.fields.includes(f.field))
    : [];
  if (lost.length > 0) {
    return refuse(author, 'STRATEGY', 'keeps facts', `a revision may not drop ${lost[0]?.entity} / ${lost[0]?.field}`);
  }
  const stray = strategy.assigned.find(
    (a) => !strategy.entities.includes(a.entity) || !strategy.fields.includes(a.field),
  );
  if (stray) return refuse(author, 'STRATEGY', 'assignment', `${stray.entity} / ${stray.field} is not a fact of it`);
  return { ok: true };
}

function checkSynthesis(entries: readonly BoardEntry[], author: Author, body: Draft['body'] & object): Verdict {
  const { citations } = body as EntryOf<'SYNTHESIS'>['body'];
  const all = facts(entries);
  const count = (state: FactState) => all.filter((fact) => fact.state === state).length;
  const open = all.filter((fact) => fact.state !== 'VERIFIED');
  if (all.length === 0 || open.length > 0) {
    const detail = `needs every fact VERIFIED (zero PENDING, zero UNVERIFIED); ${count('PENDING')} PENDING, ${count('UNVERIFIED')} UNVERIFIED, ${open.length} not verified`;
    return refuse(author, 'SYNTHESIS', 'gate', detail);
  }
  const verified = new Set(all.map((fact) => fact.latest?.id));
  const bad = citations.filter((id) => !verified.has(id));
  if (bad.length > 0)
    return refuse(author, 'SYNTHESIS', 'citations', `cites ${bad.join(', ')}, not current VERIFIED ids`);
  return { ok: true };
}

function checkFact(entries: readonly BoardEntry[], author: Author, draft: Draft): Verdict {
  const type = draft.type as FactType;
  const body = draft.body as FactEntry['body'];
  const view = facts(entries).find((fact) => fact.entity === body.entity && fact.field === body.field);
  const state: FactState = view?.state ?? 'UNKNOWN';
  const from = TRANSITIONS[type][author.role] ?? [];
  if (!from.includes(state)) {
    const allowed = from.length > 0 ? `only from ${from.join(' or ')}` : 'never';
    return refuse(
      author,
      type,
      'transition',
      `${body.entity} / ${body.field} is ${state}; ${author.role} writes ${type} ${allowed}`,
    );
  }
  if (author.role === 'worker') return checkWorkerFact(entries, author, draft, view as FactView);
  if (draft.type === 'TOMBSTONE' && view?.latest?.type === 'FAILED_URL' && draft.body.url !== view.latest.body.url) {
    return refuse(author, type, 'tombstone', `the failed URL is ${view.latest.body.url}, not ${draft.body.url}`);
  }
  if (draft.type === 'PENDING' && assigneesOf(entries, body.entity, body.field).includes(draft.body.assignedTo)) {
    return refuse(author, type, 'new worker', `${draft.body.assignedTo} already held ${body.entity} / ${body.field}`);
  }
  return { ok: true };
}

function checkWorkerFact(entries: readonly BoardEntry[], author: Author, draft: Draft, view: FactView): Verdict {
  const holder =
    view.state === 'ASSIGNED'
      ? latestStrategy(entries)?.body.assigned.find((a) => a.entity === view.entity && a.field === view.field)?.worker
      : view.latest?.type === 'PENDING'
        ? view.latest.body.assignedTo
        : undefined;
  const named =
    draft.type === 'PENDING'
      ? draft.body.assignedTo
      : draft.type === 'VERIFIED'
        ? draft.body.retrievedBy
        : draft.type === 'FAILED_URL'
          ? draft.body.triedBy
          : author.id;
  if (holder !== author.id || named !== author.id) {
    return refuse(
      author,
      draft.type,
      'assignment',
      `${view.entity} / ${view.field} is assigned to ${holder ?? 'nobody'}`,
    );
  }
  const url = draft.type === 'VERIFIED' ? draft.body.sourceUrl : undefined;
  if (url !== undefined && tombstonedUrls(entries).includes(url)) {
    return refuse(author, draft.type, 'tombstone', `${url} is tombstoned in this run`);
  }
  return { ok: true };
}
