import { z } from 'zod';
import { BOARD_LIMITS, MAX_QUOTE_CHARS } from './limits';
import { getterOf } from '../shareable';

export { BOARD_LIMITS };

const text = z.string().trim().min(1).max(BOARD_LIMITS.text);
const name = z.string().trim().min(1).max(BOARD_LIMITS.name);
const url = z
  .string()
  .trim()
  .max(BOARD_LIMITS.url)
  .regex(/^https?:\/\/\S+$/, 'expected an http(s) URL');

export const ROLES = ['supervisor', 'worker', 'user'] as const;
export type Role = (typeof ROLES)[number];

export const AuthorSchema = getterOf(z.strictObject({ role: z.enum(ROLES), id: name }));
export type Author = z.infer<ReturnType<typeof AuthorSchema>>;

/** Where a VERIFIED value was seen: the stored observation of the worker's `web_fetch`, by id or by step. */
export const EvidenceSchema = getterOf(
  z
    .strictObject({
      observationId: z
        .string()
        .regex(/^[0-9a-f]{16}$/)
        .optional(),
      step: z.number().int().nonnegative().optional(),
    })
    .refine((evidence) => evidence.observationId !== undefined || evidence.step !== undefined, {
      message: 'evidence needs an observationId or a step',
    }),
);
export type Evidence = z.infer<ReturnType<typeof EvidenceSchema>>;

const fact = { entity: name, field: name };
/** A web search query: what a worker last searched, and the new one a re-delegation after a tombstone gets. */
const query = z.string().trim().min(1).max(BOARD_LIMITS.query);
// Counted in UTF-16 units here, so twice the code points the evidence rule allows: the rule refuses a longer one.
const quote = z
  .string()
  .trim()
  .min(1)
  .max(2 * MAX_QUOTE_CHARS);

const BODIES = {
  STRATEGY: z.strictObject({
    goal: text,
    entities: z.array(name).min(1).max(BOARD_LIMITS.list),
    fields: z.array(name).min(1).max(BOARD_LIMITS.list),
    toolChain: z.array(name).max(BOARD_LIMITS.list),
    assigned: z.array(z.strictObject({ ...fact, worker: name })).max(BOARD_LIMITS.list * BOARD_LIMITS.list),
    directives: z.array(text).max(BOARD_LIMITS.list).default([]),
    /** Other names a page may give a field ("turnover" for revenue): the evidence rule accepts them. */
    aliases: z
      .record(name, z.array(name).max(BOARD_LIMITS.aliases))
      .refine((aliases) => Object.keys(aliases).length <= BOARD_LIMITS.list, 'aliases for too many fields')
      .optional(),
  }),
  PENDING: z.strictObject({ ...fact, assignedTo: name, searchHint: text.optional(), searchQuery: query.optional() }),
  VERIFIED: z.strictObject({
    ...fact,
    value: name,
    sourceUrl: url,
    retrievedBy: name,
    evidence: EvidenceSchema(),
    /** The words of the page that state the value, verbatim (absent from entries of runs before quotes). */
    quote: quote.optional(),
  }),
  UNVERIFIED: z.strictObject({ ...fact, claimedValue: name.optional(), reason: text }),
  FAILED_URL: z.strictObject({ ...fact, url, failureReason: text, triedBy: name, searchQuery: query.optional() }),
  TOMBSTONE: z.strictObject({ ...fact, url, failureReason: text, permanent: z.literal(true) }),
  USER_DIRECTIVE: z.strictObject({ text }),
  SYNTHESIS: z.strictObject({
    answer: z.string().trim().min(1).max(BOARD_LIMITS.answer),
    citations: z
      .array(z.string().min(1).max(BOARD_LIMITS.name))
      .min(1)
      .max(BOARD_LIMITS.list * BOARD_LIMITS.list),
  }),
} as const;

/** The body of each entry type (design.md, Entries), capped. Facts are named by entity and field. */
export const ENTRY_BODIES = getterOf(BODIES);

export type EntryType = keyof typeof BODIES;
export const ENTRY_TYPES = Object.keys(BODIES) as EntryType[];
export type EntryBody<T extends EntryType> = z.output<(typeof BODIES)[T]>;

/** Entry types that move one entity/field fact through its states. */
export const FACT_TYPES = ['PENDING', 'VERIFIED', 'UNVERIFIED', 'FAILED_URL', 'TOMBSTONE'] as const;
export type FactType = (typeof FACT_TYPES)[number];

export function isFactType(type: EntryType): type is FactType {
  return (FACT_TYPES as readonly string[]).includes(type);
}

/** What a writer submits: a type and its body. The board adds id, author, turn and time. */
export const DraftSchema = getterOf(
  z.discriminatedUnion(
    'type',
    ENTRY_TYPES.map((type) => z.strictObject({ type: z.literal(type), body: BODIES[type] })) as unknown as [
      z.ZodObject,
      z.ZodObject,
    ],
  ),
);
export type Draft = { [T in EntryType]: { type: T; body: EntryBody<T> } }[EntryType];

/** An accepted entry as it leaves the board (a continue-as-new, the mirror): a draft with what the board added. */
export const BoardEntrySchema = getterOf(
  z.discriminatedUnion(
    'type',
    ENTRY_TYPES.map((type) =>
      z.strictObject({
        id: z.string().min(1).max(BOARD_LIMITS.name),
        type: z.literal(type),
        author: AuthorSchema(),
        turn: z.number().int().nonnegative(),
        createdAt: z.string().max(BOARD_LIMITS.name),
        body: BODIES[type],
      }),
    ) as unknown as [z.ZodObject, z.ZodObject],
  ),
);

/** An accepted, immutable board entry. */
export type BoardEntry = {
  [T in EntryType]: { id: string; type: T; author: Author; turn: number; createdAt: string; body: EntryBody<T> };
}[EntryType];

export type EntryOf<T extends EntryType> = Extract<BoardEntry, { type: T }>;
