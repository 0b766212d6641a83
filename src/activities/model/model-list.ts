import { ApplicationFailure } from '@temporalio/common';
import { type FailedModelDetail, modelListOf } from '../../core/cycle/model-list';
import { ModelError } from '../../common/failure-types';
import type { ModelProvider } from './provider';
import { quotedSpec } from './excerpt';

/** A worker's `resolveModel`; the resolver `createModelResolver` builds also reads model lists. */
export type ResolveModel = ((spec?: string) => ModelProvider) & { specsOf?(requested?: string): string[] };

/**
 * The spec a request asks, with the size of its list: the `fallback`th of the list it names, or of the worker's
 * default (undefined for the default of a resolver that reads no lists).
 */
export function specOfRequest(
  resolve: ResolveModel,
  model: string | undefined,
  fallback = 0,
): { spec: string | undefined; models: number } {
  const specs: (string | undefined)[] = resolve.specsOf
    ? resolve.specsOf(model)
    : model === undefined
      ? [undefined]
      : modelListOf(model);
  if (fallback >= specs.length) {
    // Only a worker whose default list is shorter than the one that answered before can be asked past its end.
    throw ApplicationFailure.nonRetryable(
      `the model list names ${specs.length} model(s): there is no model ${fallback + 1}`,
      ModelError.BadRequest,
    );
  }
  return { spec: specs[fallback], models: specs.length };
}

/**
 * `error` with what failed added to its details, when the list names several models: the workflow reads it to ask
 * the next. Only a provider's `ApplicationFailure` gets it; anything else is a bug of ours, which no model fixes.
 */
export function withFailedModel(error: unknown, spec: string | undefined, models: number): unknown {
  if (models < 2 || spec === undefined || !(error instanceof ApplicationFailure)) return error;
  const detail: FailedModelDetail = { failedModel: quotedSpec(spec), models };
  return ApplicationFailure.create({
    message: error.message,
    type: error.type ?? undefined,
    nonRetryable: error.nonRetryable ?? undefined,
    nextRetryDelay: error.nextRetryDelay ?? undefined,
    details: [...(error.details ?? []), detail],
    cause: error.cause,
  });
}

/** `response` marked with the spec that answered, when the list names several models. */
export function withAnsweringSpec<T>(response: T, spec: string | undefined, models: number): T {
  return models < 2 || spec === undefined ? response : { ...response, spec: quotedSpec(spec) };
}
