import { BOARD_LIMITS, MAX_PLANNED_FACTS } from './limits';
import type { Message, ModelRequest, ModelResponse } from '../cycle/model';
import { objectSpans, parseToolCalls } from '../cycle/parse';

/** The tool the supervisor's model must call to plan a run. */
export const PLAN_TOOL = 'plan_research';

export { MAX_PLANNED_FACTS };

/** What STRATEGY is built from: given by the user, planned by the supervisor's model, or both. */
export interface ResearchPlan {
  goal: string;
  entities: string[];
  fields: string[];
  /** Other names pages give a field, by field (STRATEGY's `aliases`). */
  aliases?: Record<string, string[]>;
}

/** The lists the user gave; a list left out is the model's to plan. */
export interface GivenLists {
  question: string;
  entities?: readonly string[] | undefined;
  fields?: readonly string[] | undefined;
}

export type PlanVerdict = { ok: true; plan: ResearchPlan } | { ok: false; reason: string };

/** Whether the supervisor must ask its model: a list the user did not give. */
export function needsPlan(given: GivenLists): boolean {
  return !given.entities || !given.fields;
}

/** The supervisor's request to its model. The first line names the question, so scripted models can route it. */
export function planPrompt(given: GivenLists): string {
  const lines = [
    `Question: ${given.question}`,
    '',
    `Plan this research run with one call to ${PLAN_TOOL}: the goal in one sentence, the entities the question is ` +
      'about, and the fields to find for each entity. Every entity × field pair is one fact a worker must find on ' +
      'a live web page, so name entities and fields as a page would.',
    `Limits: at most ${MAX_PLANNED_FACTS} facts in all, at most ${BOARD_LIMITS.list} entities and ` +
      `${BOARD_LIMITS.list} fields, each name at most ${BOARD_LIMITS.name} characters.`,
  ];
  if (given.entities) lines.push(`Entities (given by the user; keep them): ${given.entities.join(', ')}`);
  if (given.fields) lines.push(`Fields (given by the user; keep them): ${given.fields.join(', ')}`);
  return lines.join('\n');
}

/** The supervisor's model request: the plan tool forced, the conversation so far, its own model if named. */
export function planRequest(messages: Message[], model?: string): ModelRequest {
  return {
    system: 'research_strategy',
    messages,
    tools: [PLAN_TOOL],
    toolChoice: { name: PLAN_TOOL },
    ...(model && { model }),
  };
}

/** The corrective turn after a refused plan: the reason, and what to send instead. */
export function planCorrection(reason: string): string {
  return `That plan was refused: ${reason}\nCall ${PLAN_TOOL} once more with a corrected plan within the limits.`;
}

/** The model's reply as the corrective turn quotes it back. */
export function replySummary(response: ModelResponse): string {
  const call = response.toolCalls[0];
  const text = call ? `${call.name}(${safeJson(call.input)})` : response.text;
  return text.slice(0, BOARD_LIMITS.text) || '(empty reply)';
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '(unprintable)';
  }
}

/**
 * The plan in a model reply: a `plan_research` call (native, or in the JSON text protocol), or one bare
 * `{goal, entities, fields}` object as small local models tend to write it. Validated against {@link checkPlan}.
 */
export function planFromResponse(response: ModelResponse, given: GivenLists): PlanVerdict {
  const parsed = parseToolCalls(response);
  if (parsed.ok) {
    const call = parsed.calls.find((candidate) => candidate.tool === PLAN_TOOL);
    if (call) return checkPlan(call.args, given);
    return { ok: false, reason: `expected a call to ${PLAN_TOOL}, got ${parsed.calls.map((c) => c.tool).join(', ')}` };
  }
  if (response.toolCalls.length > 0) return { ok: false, reason: parsed.error };
  const bare = bareObject(response.text);
  if (bare) return checkPlan(bare, given);
  return { ok: false, reason: `no ${PLAN_TOOL} call in the reply (${parsed.error})` };
}

function bareObject(text: string): Record<string, unknown> | undefined {
  const spans = objectSpans(text);
  if (spans.length !== 1) return undefined;
  try {
    const value: unknown = JSON.parse(spans[0] as string);
    return isRecord(value) && ('entities' in value || 'fields' in value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Validates untrusted plan arguments with the board's own limits: names trimmed, blank ones dropped, duplicates
 * (ignoring case and spacing) dropped, lists non-empty and capped, and at most {@link MAX_PLANNED_FACTS} facts.
 * A list the user gave wins over the model's, which is then ignored whatever it holds.
 */
export function checkPlan(args: unknown, given: GivenLists): PlanVerdict {
  if (!isRecord(args)) return { ok: false, reason: `${PLAN_TOOL} arguments must be an object` };
  const goal = checkGoal(args.goal, given.question);
  if (!goal.ok) return goal;
  const entities = given.entities ? { ok: true as const, names: [...given.entities] } : nameList('entities', args);
  if (!entities.ok) return entities;
  const fields = given.fields ? { ok: true as const, names: [...given.fields] } : nameList('fields', args);
  if (!fields.ok) return fields;
  const count = entities.names.length * fields.names.length;
  if (count > MAX_PLANNED_FACTS) {
    return {
      ok: false,
      reason:
        `${entities.names.length} entities × ${fields.names.length} fields = ${count} facts; ` +
        `a planned run has at most ${MAX_PLANNED_FACTS}`,
    };
  }
  const aliases = aliasesOf(args.aliases, fields.names);
  return {
    ok: true,
    plan: { goal: goal.goal, entities: entities.names, fields: fields.names, ...(aliases && { aliases }) },
  };
}

/**
 * The aliases a plan gives its fields, leniently: only for fields of the plan, names trimmed and capped, anything
 * malformed left out (aliases only widen what the evidence rule accepts as naming a field).
 */
export function aliasesOf(value: unknown, fields: readonly string[]): Record<string, string[]> | undefined {
  if (!isRecord(value)) return undefined;
  const aliases: Record<string, string[]> = {};
  for (const field of fields) {
    const names = value[field];
    if (!Array.isArray(names)) continue;
    const kept = names
      .filter((alias): alias is string => typeof alias === 'string')
      .map((alias) => alias.trim().replace(/\s+/g, ' '))
      .filter((alias) => alias !== '' && alias.length <= BOARD_LIMITS.name && alias !== field)
      .slice(0, BOARD_LIMITS.aliases);
    if (kept.length > 0) aliases[field] = [...new Set(kept)];
  }
  return Object.keys(aliases).length > 0 ? aliases : undefined;
}

function checkGoal(value: unknown, question: string): { ok: true; goal: string } | { ok: false; reason: string } {
  // The goal only frames the workers' briefs, so a missing one falls back to the question itself.
  if (value === undefined || value === null) return { ok: true, goal: question };
  if (typeof value !== 'string') return { ok: false, reason: `goal must be a string, got ${typeName(value)}` };
  const goal = value.trim();
  if (goal.length > BOARD_LIMITS.text) {
    return { ok: false, reason: `goal has ${goal.length} characters; at most ${BOARD_LIMITS.text}` };
  }
  return { ok: true, goal: goal || question };
}

type NameList = { ok: true; names: string[] } | { ok: false; reason: string };

function nameList(key: 'entities' | 'fields', args: Record<string, unknown>): NameList {
  const value = args[key];
  if (!Array.isArray(value)) return { ok: false, reason: `${key} must be a list of names, got ${typeName(value)}` };
  if (value.length > BOARD_LIMITS.list) {
    return { ok: false, reason: `${key} has ${value.length} items; at most ${BOARD_LIMITS.list}` };
  }
  const names: string[] = [];
  const seen = new Set<string>();
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string')
      return { ok: false, reason: `${key}[${index}] must be a string, got ${typeName(item)}` };
    const name = item.trim().replace(/\s+/g, ' ');
    if (name.length > BOARD_LIMITS.name) {
      return { ok: false, reason: `${key}[${index}] has ${name.length} characters; at most ${BOARD_LIMITS.name}` };
    }
    const folded = name.toLowerCase();
    if (name === '' || seen.has(folded)) continue;
    seen.add(folded);
    names.push(name);
  }
  if (names.length === 0) return { ok: false, reason: `${key} is empty: name at least one` };
  return { ok: true, names };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}
