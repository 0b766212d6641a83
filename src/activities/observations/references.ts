import type { Observation } from '../../core/tools/observation';

// `{{step3.content}}`, `{{ step3.result.stdout }}`: a step number and a dotted field path.
const REFERENCE = /\{\{\s*step(\d+)\.([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*\}\}/g;
const WHOLE_REFERENCE = new RegExp(`^${REFERENCE.source}$`);

/** Where to find the full observation of a step of the current cycle; undefined when there is none. */
export type StepLookup = (step: number) => Promise<Observation | undefined>;

/** Outcome of resolving references: the arguments with every reference replaced, or why one could not be. */
export type Resolution = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

class UnresolvedReference extends Error {}

/** Whether any string in `value` holds a `{{stepN.field}}` reference. */
export function hasReferences(value: unknown): boolean {
  if (typeof value === 'string') return new RegExp(REFERENCE.source).test(value);
  if (Array.isArray(value)) return value.some(hasReferences);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasReferences);
  return false;
}

/**
 * Replaces `{{stepN.field}}` in every string of the arguments by that field of step N's full observation. A
 * string that is exactly one reference takes the field's value as is; inside longer text, non-strings are JSON.
 * `content` names the tool's main payload, `result`, unless the observation has a field of that name.
 */
export async function resolveReferences(args: Record<string, unknown>, lookup: StepLookup): Promise<Resolution> {
  const cache = new Map<number, Observation | undefined>();
  const load = async (step: number) => {
    if (!cache.has(step)) cache.set(step, await lookup(step));
    return cache.get(step);
  };
  try {
    return { ok: true, args: (await substitute(args, load)) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof UnresolvedReference) return { ok: false, error: error.message };
    throw error;
  }
}

async function substitute(value: unknown, load: StepLookup): Promise<unknown> {
  if (typeof value === 'string') return substituteString(value, load);
  if (Array.isArray(value)) return Promise.all(value.map((item) => substitute(item, load)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([key, item]) => [key, await substitute(item, load)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

async function substituteString(text: string, load: StepLookup): Promise<unknown> {
  const whole = WHOLE_REFERENCE.exec(text);
  if (whole) return fieldOf(whole[0], Number(whole[1]), whole[2] as string, load);
  const references = [...text.matchAll(REFERENCE)];
  if (references.length === 0) return text;
  const values = await Promise.all(
    references.map((match) => fieldOf(match[0], Number(match[1]), match[2] as string, load)),
  );
  let index = 0;
  return text.replace(REFERENCE, () => {
    const value = values[index++];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

async function fieldOf(reference: string, step: number, path: string, load: StepLookup): Promise<unknown> {
  const observation = await load(step);
  if (observation === undefined) {
    throw new UnresolvedReference(`${reference}: no tool observation of step ${step} is stored for this cycle`);
  }
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  let value: unknown = observation;
  let walked = '';
  for (const segment of [head === 'content' && !('content' in observation) ? 'result' : head, ...rest]) {
    const container = value as Record<string, unknown>;
    if (value === null || typeof value !== 'object' || !Object.hasOwn(container, segment)) {
      const keys = value !== null && typeof value === 'object' ? Object.keys(container) : [];
      if (!walked && keys.includes('result') && !keys.includes('content')) keys.push('content');
      throw new UnresolvedReference(
        `${reference}: step ${step}${walked} has no field "${segment}" (fields: ${keys.join(', ') || 'none'})`,
      );
    }
    value = container[segment];
    walked += `.${segment}`;
  }
  return value;
}
