import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_MESSAGE_CHARS } from '../src/core/agent/agent';

/*
 * The data bench:memory runs on: conversations of user turns in dated sessions, then questions with accepted answers.
 * The built-in set is bench/memory/dataset.json (one conversation); LongMemEval's published JSON maps onto the same
 * shape, one conversation per question (each item has its own haystack).
 */

/** The question types of the built-in set; LongMemEval's items keep their own `question_type`. */
export const QUESTION_TYPES = ['single-fact', 'updated-fact', 'preference', 'temporal', 'long-range'] as const;

/** Where a question's answer was said: a session and, when known, the user turn in it (1-based). */
export interface Evidence {
  session: string;
  turn?: number;
}

export interface MemorySession {
  id: string;
  /** Shown before each of its user turns as `[date]`, so temporal questions have a clock. */
  date?: string;
  /** The user's turns; the agent under test writes the replies. */
  turns: string[];
}

export interface MemoryQuestion {
  id: string;
  type: string;
  question: string;
  /** Any one of them, normalised, contained in the normalised reply counts as correct. */
  answers: string[];
  /** Values the answer had before a correction: a reply naming one of them and no accepted answer is stale. */
  stale?: string[];
  evidence?: Evidence[];
  date?: string;
}

/** Sessions in order, then questions asked once all of them were said. */
export interface Conversation {
  id: string;
  sessions: MemorySession[];
  questions: MemoryQuestion[];
}

export interface MemoryDataset {
  name: string;
  /** Where it came from, for the report. */
  source: string;
  conversations: Conversation[];
  /** `--sessions N` keeps the sessions the questions' evidence is in, then the earliest others (LongMemEval). */
  keepEvidence: boolean;
}

/** What to run of a dataset. */
export interface Selection {
  sessions?: number;
  /** User turns kept per session, from its start. */
  turns?: number;
  questions?: number;
}

function repoFile(...parts: string[]): string {
  for (let directory = __dirname; directory !== path.dirname(directory); directory = path.dirname(directory)) {
    const candidate = path.join(directory, ...parts);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${parts.join('/')} not found above ${__dirname}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The built-in set, checked: a broken edit of the JSON fails here, not halfway through a run. */
export function loadBuiltInDataset(file = repoFile('bench', 'memory', 'dataset.json')): MemoryDataset {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const problem = (message: string) => new Error(`${file}: ${message}`);
  if (!isObject(raw) || !Array.isArray(raw.sessions) || !Array.isArray(raw.questions)) {
    throw problem('expected {name, sessions: [...], questions: [...]}');
  }
  const sessions = raw.sessions.map((session: unknown, index): MemorySession => {
    if (!isObject(session) || typeof session.id !== 'string' || !isStringArray(session.turns)) {
      throw problem(`session ${index + 1}: expected {id, date?, turns: [string]}`);
    }
    return { id: session.id, turns: session.turns, ...(typeof session.date === 'string' && { date: session.date }) };
  });
  const questionDate = typeof raw.questionDate === 'string' ? raw.questionDate : undefined;
  const questions = raw.questions.map((question: unknown, index): MemoryQuestion => {
    const where = `question ${index + 1}`;
    if (!isObject(question) || typeof question.id !== 'string' || typeof question.question !== 'string') {
      throw problem(`${where}: expected {id, type, question, answers, stale?, evidence}`);
    }
    if (!(QUESTION_TYPES as readonly unknown[]).includes(question.type)) {
      throw problem(`${where}: type must be one of ${QUESTION_TYPES.join(', ')}`);
    }
    if (!isStringArray(question.answers) || question.answers.length === 0) throw problem(`${where}: no answers`);
    const evidence = Array.isArray(question.evidence) ? (question.evidence as Evidence[]) : [];
    for (const entry of evidence) {
      const session = sessions.find((candidate) => candidate.id === entry.session);
      if (!session || (entry.turn !== undefined && !session.turns[entry.turn - 1])) {
        throw problem(`${where}: evidence ${JSON.stringify(entry)} names no turn`);
      }
    }
    return {
      id: question.id,
      type: question.type as string,
      question: question.question,
      answers: question.answers,
      ...(isStringArray(question.stale) && { stale: question.stale }),
      evidence,
      ...(questionDate && { date: questionDate }),
    };
  });
  const name = typeof raw.name === 'string' ? raw.name : path.basename(file);
  return {
    name,
    source: `bench/memory/${path.basename(file)}`,
    conversations: [{ id: name, sessions, questions }],
    keepEvidence: false,
  };
}

/** Why `raw` is not LongMemEval's published JSON (a list of items), or undefined when it is. */
export function longMemEvalProblem(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return 'it is not a JSON list of items';
  if (raw.length === 0) return 'the list is empty';
  for (const [index, item] of raw.entries()) {
    const where = `item ${index + 1}`;
    if (!isObject(item)) return `${where} is not an object`;
    for (const key of ['question', 'question_type'] as const) {
      if (typeof item[key] !== 'string') return `${where} has no string "${key}"`;
    }
    if (typeof item.answer !== 'string' && typeof item.answer !== 'number') return `${where} has no "answer"`;
    const sessions = item.haystack_sessions;
    if (!Array.isArray(sessions)) return `${where} has no "haystack_sessions" list`;
    for (const [at, session] of sessions.entries()) {
      const valid =
        Array.isArray(session) &&
        session.every((turn) => isObject(turn) && typeof turn.role === 'string' && typeof turn.content === 'string');
      if (!valid) return `${where}: haystack_sessions[${at}] is not a list of {role, content}`;
    }
    const dates = item.haystack_dates;
    if (dates !== undefined && (!isStringArray(dates) || dates.length !== sessions.length)) {
      return `${where}: haystack_dates does not have one date per session`;
    }
  }
  return undefined;
}

const safeId = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'item';

/**
 * LongMemEval (Wu et al., 2024; `longmemeval_s.json`, `_m` or `_oracle`) mapped onto the runner: each item is a
 * conversation of its `haystack_sessions` (user turns only: the agent under test writes its own replies, so an answer
 * only an assistant turn held cannot be recalled, and those items are left out), dated by `haystack_dates`, and one
 * question with `answer` as its accepted answer and `answer_session_ids` as evidence.
 */
export function loadLongMemEval(file: string): MemoryDataset {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`--longmemeval ${file}: cannot read it as JSON (${(error as Error).message})`);
  }
  const problem = longMemEvalProblem(raw);
  if (problem) {
    throw new Error(
      `--longmemeval ${file} is not LongMemEval's published JSON: ${problem}. Expected a list of items ` +
        '{question_id, question_type, question, answer, question_date, haystack_dates, haystack_session_ids, ' +
        'haystack_sessions: [[{role, content}]], answer_session_ids}, as in longmemeval_s.json.',
    );
  }
  const items = raw as Record<string, unknown>[];
  const conversations: Conversation[] = [];
  for (const [index, item] of items.entries()) {
    if (item.question_type === 'single-session-assistant') continue;
    const id = safeId(typeof item.question_id === 'string' ? item.question_id : `q${index + 1}`);
    const ids = isStringArray(item.haystack_session_ids) ? item.haystack_session_ids : [];
    const dates = isStringArray(item.haystack_dates) ? item.haystack_dates : [];
    const sessions = (item.haystack_sessions as { role: string; content: string }[][]).map((session, at) => ({
      id: ids[at] ?? `s${at + 1}`,
      ...(dates[at] && { date: dates[at] }),
      // `send` refuses a longer message; the date prefix needs a little room.
      turns: session
        .filter((turn) => turn.role === 'user' && turn.content.trim())
        .map((turn) => turn.content.slice(0, MAX_MESSAGE_CHARS - 40)),
    }));
    const evidence = (isStringArray(item.answer_session_ids) ? item.answer_session_ids : []).map((session) => ({
      session,
    }));
    const question: MemoryQuestion = {
      id,
      // Abstention items (`_abs`) expect the model to say it does not know: no string match can check that.
      type: `${item.question_type as string}${id.endsWith('_abs') ? ' (abstention)' : ''}`,
      question: item.question as string,
      answers: [String(item.answer)],
      evidence,
      ...(typeof item.question_date === 'string' && { date: item.question_date }),
    };
    conversations.push({ id, sessions: sessions.filter((session) => session.turns.length > 0), questions: [question] });
  }
  if (conversations.length === 0) throw new Error(`--longmemeval ${file}: no item left to run`);
  const skipped = items.length - conversations.length;
  const note = skipped > 0 ? `; ${skipped} single-session-assistant items left out` : '';
  return { name: 'LongMemEval', source: `${file}${note}`, conversations, keepEvidence: true };
}

function evidenceKept(question: MemoryQuestion, sessions: readonly MemorySession[]): boolean {
  return (question.evidence ?? []).every((entry) => {
    const session = sessions.find((candidate) => candidate.id === entry.session);
    return session !== undefined && (entry.turn === undefined || entry.turn <= session.turns.length);
  });
}

/** Up to `count` questions, the types taken in turn, each type's in dataset order, so a subset spans the types. */
function spreadByType(questions: readonly MemoryQuestion[], count: number): MemoryQuestion[] {
  const byType = new Map<string, MemoryQuestion[]>();
  for (const question of questions) byType.set(question.type, [...(byType.get(question.type) ?? []), question]);
  const order = [...QUESTION_TYPES, ...[...byType.keys()].filter((type) => !QUESTION_TYPES.includes(type as never))];
  const queues = order.map((type) => [...(byType.get(type) ?? [])]);
  const chosen = new Set<MemoryQuestion>();
  while (chosen.size < count && queues.some((queue) => queue.length > 0)) {
    for (const queue of queues) {
      const next = queue.shift();
      if (next && chosen.size < count) chosen.add(next);
    }
  }
  return questions.filter((question) => chosen.has(question));
}

function selectSessions(conversation: Conversation, keepEvidence: boolean, count: number): MemorySession[] {
  const { sessions } = conversation;
  if (count >= sessions.length) return sessions;
  if (!keepEvidence) return sessions.slice(0, count);
  const needed = new Set(conversation.questions.flatMap((question) => (question.evidence ?? []).map((e) => e.session)));
  const kept = new Set(sessions.filter((session) => needed.has(session.id)).slice(0, count));
  for (const session of sessions) if (kept.size < count) kept.add(session);
  return sessions.filter((session) => kept.has(session));
}

/**
 * The part of the dataset a run asks for. Built-in: the first sessions, the first turns of each, and the questions
 * whose evidence all of that still holds, spread over the types. LongMemEval: the first items (`questions`), each
 * with its evidence sessions kept first.
 */
export function selectDataset(dataset: MemoryDataset, selection: Selection): MemoryDataset {
  const trim = (conversation: Conversation): Conversation => {
    const sessions = selectSessions(conversation, dataset.keepEvidence, selection.sessions ?? Infinity).map(
      (session) => ({ ...session, turns: session.turns.slice(0, selection.turns ?? Infinity) }),
    );
    const answerable = conversation.questions.filter((question) => evidenceKept(question, sessions));
    return { ...conversation, sessions, questions: answerable };
  };
  let conversations = dataset.conversations.map(trim).filter((conversation) => conversation.questions.length > 0);
  if (selection.questions !== undefined) {
    conversations = dataset.keepEvidence
      ? conversations.slice(0, selection.questions)
      : conversations.map((conversation) => ({
          ...conversation,
          questions: spreadByType(conversation.questions, selection.questions!),
        }));
  }
  if (conversations.length === 0) throw new Error('the selection leaves no question whose evidence is kept');
  return { ...dataset, conversations };
}

/** Sessions, user turns and questions in a dataset. */
export function datasetSize(dataset: MemoryDataset): { sessions: number; turns: number; questions: number } {
  const all = dataset.conversations;
  return {
    sessions: all.reduce((sum, conversation) => sum + conversation.sessions.length, 0),
    turns: all.reduce((sum, c) => sum + c.sessions.reduce((inner, session) => inner + session.turns.length, 0), 0),
    questions: all.reduce((sum, conversation) => sum + conversation.questions.length, 0),
  };
}

/** A user turn as every arm sends it: the session's date first, when it has one. */
export function datedMessage(text: string, date?: string): string {
  return date ? `[${date}] ${text}` : text;
}
