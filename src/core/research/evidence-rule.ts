import { MAX_QUOTE_CHARS } from './limits';
import { type Span, bareWords, claimText, pageText, pageTitle, wordSpans } from './evidence-text';

/** The fetched page a VERIFIED claim cites: where it was fetched from, and its content as fetched. */
export interface EvidencePage {
  url: string;
  content: string;
}

/** What a worker claims: its fact, the value, and the verbatim quote from the page that states it. */
export interface EvidenceClaim {
  entity: string;
  field: string;
  value: string;
  quote?: string | undefined;
}

/** The run the claim belongs to, as its STRATEGY lists it: every entity and field, and aliases of fields. */
export interface EvidenceRun {
  entities: readonly string[];
  fields: readonly string[];
  aliases?: Readonly<Record<string, readonly string[]>> | undefined;
}

export type EvidenceRuling = { ok: true } | { ok: false; rule: string; reason: string };

/** A name found in the quote: which entity or field, and where. */
interface Mention extends Span {
  name: string;
}

function refuse(rule: string, reason: string): EvidenceRuling {
  return { ok: false, rule, reason: `[${rule}] ${reason}` };
}

/** Names of `field` the quote may use: the field, and what STRATEGY lists as its aliases. */
function namesOf(field: string, run: EvidenceRun): string[] {
  return [field, ...(run.aliases?.[field] ?? [])];
}

/**
 * Where each of `owners` is named in `text`, by any of its names. A mention inside a longer one is not its own:
 * "Acme" inside "Acme Asia" names Acme Asia only.
 */
function mentions(text: string, owners: readonly string[], names: (owner: string) => string[], plural: boolean) {
  const all: Mention[] = owners.flatMap((owner) =>
    names(owner).flatMap((name) => wordSpans(text, claimText(name), plural).map((span) => ({ ...span, name: owner }))),
  );
  all.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Mention[] = [];
  for (const mention of all) {
    if (!kept.some((other) => mention.start < other.end && other.start < mention.end)) kept.push(mention);
  }
  return kept;
}

/**
 * Whose the value at `span` is: the nearest name before it (a table row reads label, then value), else the
 * nearest after it (prose: "5,000 employees"). Undefined when the quote names none.
 */
function ownerOf(span: Span, named: readonly Mention[]): string | undefined {
  const before = named.filter((mention) => mention.end <= span.start).sort((a, b) => b.end - a.end)[0];
  if (before) return before.name;
  return named.filter((mention) => mention.start >= span.end).sort((a, b) => a.start - b.start)[0]?.name;
}

/** True when the URL's host or path names the entity: `/acme`, `acme.example`, `/globex-corp`, `/globexcorp`. */
function urlNames(url: string, entity: string): boolean {
  let words: string[];
  try {
    const parsed = new URL(url);
    words = bareWords(decodeURIComponentSafe(`${parsed.hostname} ${parsed.pathname}`));
  } catch {
    return false;
  }
  const name = bareWords(entity);
  if (name.length === 0) return false;
  const joined = name.join('');
  return words.some(
    (_word, index) => words[index] === joined || name.every((part, offset) => words[index + offset] === part),
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** True when the page is about the entity: its title or its URL names it. */
export function pageIsAbout(page: EvidencePage, entity: string): boolean {
  return wordSpans(pageTitle(page.content), claimText(entity)).length > 0 || urlNames(page.url, entity);
}

/** True when `value` is only a label of the run: a field's name or alias, or an entity's name. */
function isLabel(value: string, run: EvidenceRun, claim: EvidenceClaim): boolean {
  const bare = bareWords(value).join(' ');
  if (bare === '') return true;
  const labels = [
    claim.entity,
    claim.field,
    ...run.entities,
    ...run.fields.flatMap((field) => namesOf(field, run)),
    ...namesOf(claim.field, run),
  ];
  return labels.some((label) => bareWords(label).join(' ') === bare);
}

/**
 * The evidence rule (design.md, Verified means checked), pure: a VERIFIED claim stands only when its quote is on the
 * page (normalised), holds the value, names the field (or an alias) and the entity (unless the page is about the
 * entity), names no other entity of the run instead, gives the value to this entity and this field where it names
 * several, and the value is more than a label. The first rule broken is the refusal, naming the rule.
 */
export function judgeEvidence(page: EvidencePage, claim: EvidenceClaim, run: EvidenceRun): EvidenceRuling {
  const raw = claim.quote?.trim() ?? '';
  if (raw === '') {
    return refuse('quote', 'VERIFIED needs a quote: the words of the page that state the value, copied verbatim');
  }
  if ([...raw].length > MAX_QUOTE_CHARS) {
    return refuse('quote', `the quote has ${[...raw].length} characters; at most ${MAX_QUOTE_CHARS}`);
  }
  if (isLabel(claim.value, run, claim)) {
    return refuse('label', `the value "${claim.value}" is a name of the run's fields or entities, not a value`);
  }
  const quote = claimText(raw);
  if (!pageText(page.content).includes(quote)) {
    return refuse('quote', `the quote does not occur in ${page.url}`);
  }
  const values = wordSpans(quote, claimText(claim.value));
  if (values.length === 0) return refuse('value', `value "${claim.value}" does not occur in the quote`);
  const fieldList = run.fields.includes(claim.field) ? run.fields : [...run.fields, claim.field];
  const fields = mentions(quote, fieldList, (field) => namesOf(field, run), true);
  if (!fields.some((mention) => mention.name === claim.field)) {
    const aliases = namesOf(claim.field, run).slice(1);
    const also = aliases.length > 0 ? ` or its aliases ${aliases.join(', ')}` : '';
    return refuse('field', `the quote does not name the field "${claim.field}"${also}`);
  }
  const entityList = run.entities.includes(claim.entity) ? run.entities : [...run.entities, claim.entity];
  const entities = mentions(quote, entityList, (entity) => [entity], false);
  const named = entities.some((mention) => mention.name === claim.entity);
  if (!named && entities.length > 0) {
    const others = [...new Set(entities.map((mention) => mention.name))].join(', ');
    return refuse('other entity', `the quote names ${others}, not ${claim.entity}`);
  }
  if (!named && !pageIsAbout(page, claim.entity)) {
    return refuse(
      'entity',
      `the quote does not name ${claim.entity}, and the page is not about it (neither its title nor its URL names it)`,
    );
  }
  // A value may carry its own field ("5,000 employees"): then the field is its, whatever comes before.
  const inside = (span: Span, named: readonly Mention[], name: string) =>
    named.some((mention) => mention.name === name && mention.start >= span.start && mention.end <= span.end);
  const owns = (span: Span, named: readonly Mention[], name: string) =>
    inside(span, named, name) || ownerOf(span, named) === name;
  const owned = values.filter(
    (span) => owns(span, fields, claim.field) && (entities.length === 0 || owns(span, entities, claim.entity)),
  );
  if (owned.length === 0) {
    const span = values[0] as Span;
    const field = ownerOf(span, fields);
    const whose = owns(span, fields, claim.field) ? String(ownerOf(span, entities)) : `the field ${field}`;
    return refuse(
      'row',
      `in the quote, "${claim.value}" is given for ${whose}, not ${claim.entity} / ${claim.field}: quote only the ` +
        'words that state this fact',
    );
  }
  return { ok: true };
}
