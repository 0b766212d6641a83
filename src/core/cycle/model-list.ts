/**
 * Most models one list names: a call may wait out every retry of each before the next, so a long list is a long wait.
 */
export const MAX_MODEL_LIST = 5;

/** The specs of a model list (`a,b`) in the order they are tried, each trimmed; one spec is a list of one. */
export function modelListOf(value: string): string[] {
  return value.split(',').map((spec) => spec.trim());
}

/** Why `value` cannot be a model list (an empty entry, a repeat, too many), or undefined when it can. */
export function modelListProblem(value: string): string | undefined {
  const specs = modelListOf(value);
  const empty = specs.findIndex((spec) => spec === '');
  if (empty >= 0) return `entry ${empty + 1} of the model list is empty`;
  if (specs.length > MAX_MODEL_LIST) return `a model list names at most ${MAX_MODEL_LIST} models, not ${specs.length}`;
  const repeated = specs.find((spec, index) => specs.indexOf(spec) !== index);
  if (repeated !== undefined) return `the model list names ${repeated.slice(0, 100)} twice`;
  return undefined;
}

/**
 * What a failed `callModel` adds to its failure's details when its request named a list of several models: which
 * one failed and how many the list names, so the workflow can ask the next even of a list only the worker knows.
 */
export interface FailedModelDetail {
  failedModel: string;
  models: number;
}

/** Whether a failure detail is a {@link FailedModelDetail}. */
export function isFailedModelDetail(detail: unknown): detail is FailedModelDetail {
  if (detail === null || typeof detail !== 'object') return false;
  const { failedModel, models } = detail as Partial<FailedModelDetail>;
  return typeof failedModel === 'string' && typeof models === 'number';
}
