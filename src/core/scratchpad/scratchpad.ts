import { z } from 'zod';
import { getterOf } from '../shareable';

/** Largest value one update may carry for one key (design.md, Caps). */
export const MAX_UPDATE_CHARS = 5000;
/** Largest a single text section may grow to through appends. */
export const MAX_SECTION_CHARS = 5000;
/** Notes keep their newest part within this many characters: room for a whole `full` read and a few lines. */
export const MAX_NOTES_CHARS = 10000;

const text = z.string();

export const CompletedTaskSchema = getterOf(z.union([z.string(), z.object({ task: z.string(), summary: z.string() })]));
export type CompletedTask = z.infer<ReturnType<typeof CompletedTaskSchema>>;

/**
 * The agent's whole memory: the task state followed by the five sections (design.md, Sections and task state).
 * Key order is the snapshot (YAML) order.
 */
export const ScratchpadSchema = getterOf(
  z.object({
    goals: z.array(z.string()),
    current_task: z.string().nullable(),
    pending_actions: z.array(z.string()),
    completed_tasks: z.array(CompletedTaskSchema()),
    notes: z.string(),
    last_updated: z.string().nullable(),
    identity: z.object({ purpose: text, user: text, boundaries: text }),
    understanding: z.object({ known: text, believed: text, unknown: text }),
    trajectory: z.object({ now: text, path: text, later: text }),
    workspace: text,
    self: z.object({ confidence: text, attention: text, flags: text }),
  }),
);
export type Scratchpad = z.infer<ReturnType<typeof ScratchpadSchema>>;

/** The thirteen section keys of `update_scratchpad` and where each lives. */
export const SECTION_KEYS = {
  identity_purpose: ['identity', 'purpose'],
  identity_user: ['identity', 'user'],
  identity_boundaries: ['identity', 'boundaries'],
  understanding_known: ['understanding', 'known'],
  understanding_believed: ['understanding', 'believed'],
  understanding_unknown: ['understanding', 'unknown'],
  trajectory_now: ['trajectory', 'now'],
  trajectory_path: ['trajectory', 'path'],
  trajectory_later: ['trajectory', 'later'],
  workspace: ['workspace'],
  self_confidence: ['self', 'confidence'],
  self_attention: ['self', 'attention'],
  self_flags: ['self', 'flags'],
} as const;
export type SectionKey = keyof typeof SECTION_KEYS;
export const SECTION_KEY_NAMES = Object.keys(SECTION_KEYS) as SectionKey[];

/** Task keys the model may update. `last_updated` is stamped by the agent, never by the model. */
export const TASK_KEYS = ['goals', 'current_task', 'pending_actions', 'completed_tasks', 'notes'] as const;
export type TaskKey = (typeof TASK_KEYS)[number];

export type UpdateKey = SectionKey | TaskKey;
export const UPDATE_KEYS: readonly UpdateKey[] = [...TASK_KEYS, ...SECTION_KEY_NAMES];

export function isSectionKey(key: string): key is SectionKey {
  return Object.prototype.hasOwnProperty.call(SECTION_KEYS, key);
}

export function isUpdateKey(key: string): key is UpdateKey {
  return (TASK_KEYS as readonly string[]).includes(key) || isSectionKey(key);
}

/** Reads one section by its update key. */
export function getSection(state: Scratchpad, key: SectionKey): string {
  const path = SECTION_KEYS[key];
  if (path.length === 1) return state.workspace;
  const group = state[path[0]] as Record<string, string>;
  return group[path[1]] ?? '';
}

/** Returns a copy of `state` with one section set. */
export function setSection(state: Scratchpad, key: SectionKey, value: string): Scratchpad {
  const path = SECTION_KEYS[key];
  if (path.length === 1) return { ...state, workspace: value };
  const [group, field] = path;
  return { ...state, [group]: { ...state[group], [field]: value } };
}

/** A new agent's scratchpad: empty task state, the purpose, placeholders elsewhere. */
export function defaultScratchpad(purpose = 'General assistant'): Scratchpad {
  return {
    goals: [],
    current_task: null,
    pending_actions: [],
    completed_tasks: [],
    notes: '',
    last_updated: null,
    identity: { purpose, user: '[To be established through interaction]', boundaries: '[None declared]' },
    understanding: {
      known: '(none yet)',
      believed: '(none yet)',
      unknown: "- User's immediate goal\n- User's context and constraints\n- What success looks like",
    },
    trajectory: { now: 'Initialization - ready for first real input', path: '(just started)', later: '(none)' },
    workspace: '(empty)',
    self: {
      confidence: 'MEDIUM - Fresh start, no information yet',
      attention: "Establishing user's needs and context",
      flags: '(none)',
    },
  };
}

/**
 * Fills keys missing from a partial scratchpad with defaults, then validates the result, so a hand-written file
 * given to `cycle --from` or `import` need not be complete.
 */
export function normalizeScratchpad(input: unknown): Scratchpad {
  const base = defaultScratchpad();
  const raw = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  // A file that is not a scratchpad (package.json, another tool's export) would otherwise import as an empty one.
  const unknown = Object.keys(raw).filter((key) => !(key in base));
  if (unknown.length > 0) {
    throw new Error(
      `not a scratchpad: unknown key(s) ${unknown.slice(0, 5).join(', ')} (expected ${Object.keys(base).join(', ')})`,
    );
  }
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(raw)) {
    const defaultValue = (base as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (
      defaultValue &&
      typeof defaultValue === 'object' &&
      !Array.isArray(defaultValue) &&
      value &&
      typeof value === 'object'
    ) {
      merged[key] = { ...defaultValue, ...(value as object) };
    } else {
      merged[key] = value;
    }
  }
  const parsed = ScratchpadSchema().safeParse(merged);
  if (parsed.success) return parsed.data;
  // One readable line (`goals: expected array…`), not a ZodError's JSON list of issues.
  throw new Error(
    parsed.error.issues.map((issue) => `${issue.path.join('.') || 'scratchpad'}: ${issue.message}`).join('; '),
  );
}

/** Adds tasks to the queue; the first becomes `current_task` when none is set. */
export function enqueueTasks(state: Scratchpad, tasks: readonly string[], goals: readonly string[] = []): Scratchpad {
  const pending = [...state.pending_actions, ...tasks];
  const current = state.current_task ?? pending.shift() ?? null;
  return { ...state, goals: [...state.goals, ...goals], current_task: current, pending_actions: pending };
}

export function hasWork(state: Scratchpad): boolean {
  return state.current_task !== null || state.pending_actions.length > 0;
}

/** Whether `after` remembers anything `before` did not: any section or task field, notes and the stamp aside. */
export function memoryChanged(before: Scratchpad, after: Scratchpad): boolean {
  const { notes: _beforeNotes, last_updated: _beforeStamp, ...kept } = before;
  const { notes: _afterNotes, last_updated: _afterStamp, ...next } = after;
  return JSON.stringify(kept) !== JSON.stringify(next);
}
