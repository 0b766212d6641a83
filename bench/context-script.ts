import type { ScriptEntry } from '../src/activities/model/scripted';

/** One scripted chat turn: what the user says, what the model replies, and what its reflection appends. */
export interface ScriptedTurn {
  input: string;
  reply: string;
  /** Appended to UNDERSTANDING / Known. */
  known: string;
  /** Appended to WORKSPACE. */
  workspace: string;
  /** Replaces TRAJECTORY / Now. */
  now: string;
}

/** Character ranges of each generated text, as a real conversation of this kind would have them. */
export const TURN_LENGTHS = {
  input: [100, 300],
  reply: [300, 600],
  known: [100, 200],
  workspace: [200, 400],
} as const;

const SUBJECTS = [
  'the nightly ETL job',
  'the Kafka consumer group',
  'the Postgres read replica',
  'the dbt staging models',
  'the S3 landing bucket',
  'the Airflow DAG for billing',
  'the schema registry',
  'the deduplication step',
  'the late-arriving events table',
  'the CDC connector',
  'the warehouse cost report',
  'the partitioned orders table',
];
const PROBLEMS = [
  'times out after forty minutes',
  'drops a few hundred rows',
  'doubles its runtime',
  'writes duplicate keys',
  'falls behind by several hours',
  'fails with a serialization error',
  'scans far more data than expected',
  'retries the same batch forever',
];
const CONDITIONS = [
  'on the first day of the month',
  'whenever the upstream team ships a schema change',
  'after a failover of the primary',
  'when traffic spikes during the sale',
  'only in the EU region',
  'since we raised the batch size',
  'when two backfills overlap',
];
const FIXES = [
  'adding an idempotency key per event',
  'moving the merge into a staging table',
  'partitioning by event date instead of load date',
  'capping the batch size at ten thousand rows',
  'switching the consumer to cooperative rebalancing',
  'materialising the join as an incremental model',
  'adding a watermark with a two-hour grace period',
];
const CHECKS = [
  'the consumer lag dashboard',
  'the query plan of the merge statement',
  'the retry counts in the task logs',
  'the row counts per partition before and after the load',
  'the replication slot size',
  'the schema versions the producers registered',
];
const CONCERNS = ['cost', 'data freshness', 'exactly-once delivery', 'on-call load', 'auditability', 'query latency'];

/** A small deterministic generator (mulberry32): the same turns on every run, no `Math.random`. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

function pick(random: Random, items: readonly string[]): string {
  return items[Math.floor(random() * items.length)] as string;
}

function userSentence(random: Random): string {
  const templates = [
    () => `I think ${pick(random, SUBJECTS)} ${pick(random, PROBLEMS)} ${pick(random, CONDITIONS)}.`,
    () => `Can you explain how ${pick(random, SUBJECTS)} should handle ${pick(random, CONCERNS)}?`,
    () => `We tried ${pick(random, FIXES)} but ${pick(random, SUBJECTS)} still ${pick(random, PROBLEMS)}.`,
    () => `My lead cares most about ${pick(random, CONCERNS)}, so keep that in mind.`,
  ];
  return templates[Math.floor(random() * templates.length)]!();
}

function assistantSentence(random: Random): string {
  const templates = [
    () => `The likely cause is that ${pick(random, SUBJECTS)} ${pick(random, PROBLEMS)} ${pick(random, CONDITIONS)}.`,
    () => `I would start by checking ${pick(random, CHECKS)}.`,
    () => `One option is ${pick(random, FIXES)}, which trades some ${pick(random, CONCERNS)} for simplicity.`,
    () => `If that holds, ${pick(random, FIXES)} is safer than ${pick(random, FIXES)}.`,
  ];
  return templates[Math.floor(random() * templates.length)]!();
}

/** Sentences from `sentence` until a length drawn from `[min, max]`, cut at a word boundary within `max`. */
function textOfLength(random: Random, [min, max]: readonly [number, number], prefix: string, sentence: () => string) {
  const target = min + Math.floor(random() * (max - min + 1));
  let text = prefix;
  while (text.length < target) text += `${text === prefix ? '' : ' '}${sentence()}`;
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}

function scriptedTurn(random: Random, turn: number): ScriptedTurn {
  const subject = pick(random, SUBJECTS);
  return {
    input: textOfLength(random, TURN_LENGTHS.input, '', () => userSentence(random)),
    reply: textOfLength(random, TURN_LENGTHS.reply, '', () => assistantSentence(random)),
    known: textOfLength(random, TURN_LENGTHS.known, '- (user) ', () => userSentence(random)),
    workspace: textOfLength(random, TURN_LENGTHS.workspace, `Turn ${turn} notes: `, () => assistantSentence(random)),
    now: `Turn ${turn}: helping the user with ${subject} (${pick(random, CONCERNS)})`,
  };
}

/** The same `turns` scripted turns on every run. */
export function scriptedConversation(turns: number, seed = 1): ScriptedTurn[] {
  const random = generator(seed);
  return Array.from({ length: turns }, (_, index) => scriptedTurn(random, index + 1));
}

/** The scripted model's answers: per turn a text reply (respond), then an `update_scratchpad` call (reflect). */
export function conversationScript(turns: readonly ScriptedTurn[]): ScriptEntry[] {
  return turns.flatMap((turn) => [
    { text: turn.reply },
    {
      tool: 'update_scratchpad',
      args: {
        understanding_known: `APPEND: ${turn.known}`,
        workspace: `APPEND: ${turn.workspace}`,
        trajectory_now: turn.now,
      },
    },
  ]);
}
