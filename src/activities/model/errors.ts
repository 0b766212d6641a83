import { ApplicationFailure } from '@temporalio/common';
import { ModelError, type ModelErrorType } from '../../common/failure-types';
import { excerpt } from './excerpt';

/** A failed HTTP exchange as providers see it; the Anthropic SDK's `APIError` already has this shape. */
export interface HttpErrorLike {
  status: number;
  headers?: Headers | Record<string, string | undefined> | null;
  message?: string;
  /** The provider's own error message, preferred over `message` when present. */
  apiMessage?: string | null;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET']);

function statusType(status: number): { type: ModelErrorType; retryable: boolean } {
  if (status === 400 || status === 422) return { type: ModelError.BadRequest, retryable: false };
  if (status === 401 || status === 403) return { type: ModelError.Auth, retryable: false };
  if (status === 404) return { type: ModelError.NotFound, retryable: false };
  if (status === 408) return { type: ModelError.Timeout, retryable: true };
  if (status === 409) return { type: ModelError.Conflict, retryable: true };
  if (status === 429) return { type: ModelError.RateLimit, retryable: true };
  if (status === 503 || status === 529) return { type: ModelError.Overloaded, retryable: true };
  if (status >= 500) return { type: ModelError.Server, retryable: true };
  // Any other 4xx (402, 413, ...) will fail the same way again.
  return { type: ModelError.BadRequest, retryable: false };
}

function header(headers: HttpErrorLike['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  return record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** Milliseconds from `retry-after-ms`, or `retry-after` as seconds or an HTTP-date. */
function retryDelayMs(headers: HttpErrorLike['headers']): number | undefined {
  const milliseconds = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const retryAfter = header(headers, 'retry-after')?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isHttpError(error: unknown): error is HttpErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as HttpErrorLike).status === 'number';
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

// Duck-typed rather than `instanceof Error`: fetch errors may come from another realm (e.g. under Jest).
function asErrorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;
}

/** The messages and codes along an error's cause chain, e.g. `fetch failed: connect ECONNREFUSED 127.0.0.1:1`. */
function causeChain(error: unknown): { text: string; codes: string[] } {
  const parts: string[] = [];
  const codes: string[] = [];
  for (
    let current = asErrorLike(error), depth = 0;
    current && depth < 4;
    current = asErrorLike(current.cause), depth++
  ) {
    if (typeof current.message === 'string' && current.message && !parts.includes(current.message)) {
      parts.push(current.message);
    }
    if (typeof current.code === 'string') codes.push(current.code);
  }
  return { text: parts.join(': ') || String(error), codes };
}

/**
 * Whether to retry an HTTP error: the server's `x-should-retry: true|false` wins when present, as the Anthropic
 * SDK's own retry logic has it; otherwise the status decides.
 */
function retryDecision(error: HttpErrorLike): { type: ModelErrorType; retryable: boolean } {
  const byStatus = statusType(error.status);
  const told = header(error.headers, 'x-should-retry');
  if (told === 'false') return { ...byStatus, retryable: false };
  // A type the activity options list as non-retryable would stop Temporal from retrying, so it changes too.
  if (told === 'true' && !byStatus.retryable) return { type: ModelError.RetryRequested, retryable: true };
  return byStatus;
}

/**
 * The provider's error as the failure's cause, its message cut to an excerpt: SDK errors carry the whole response
 * body in their message and stack, and the cause is stored in history beside the failure. Duck-typed like the rest
 * of this file: an SDK or fetch error from another realm is still an error.
 */
function asCause(error: unknown): Error | undefined {
  const like = asErrorLike(error);
  if (!like || typeof like.name !== 'string' || typeof like.message !== 'string') return undefined;
  const cause = new Error(excerpt(like.message));
  cause.name = like.name;
  const head = `${like.name}: ${like.message}`;
  const stack = (error as Error).stack;
  const frames = typeof stack === 'string' && stack.startsWith(head) ? stack.slice(head.length) : '';
  cause.stack = `${cause.name}: ${cause.message}${frames}`;
  return cause;
}

/**
 * Maps any provider failure to an `ApplicationFailure` typed `ModelError.*`: 408/409/429/5xx/529 and
 * network errors are retryable (honouring `retry-after` and `x-should-retry`), other 4xx are not. Temporal does the
 * retrying. What the provider said is quoted as a one-line excerpt, and the original error, its message cut the same
 * way, stays on the failure as its `cause`.
 */
export function toModelFailure(error: unknown, source: string): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (isHttpError(error)) {
    const { type, retryable } = retryDecision(error);
    const detail = excerpt(error.apiMessage || error.message || 'no error message');
    return ApplicationFailure.create({
      message: `HTTP ${error.status} from ${source}: ${detail}`,
      type,
      nonRetryable: !retryable,
      nextRetryDelay: retryable ? retryDelayMs(error.headers) : undefined,
      cause: asCause(error),
    });
  }
  const { codes, ...chain } = causeChain(error);
  const text = excerpt(chain.text);
  // The openai SDK's error classes leave `name` as "Error": their class names say what they are.
  const className = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const name =
    className === 'APIConnectionTimeoutError' || className === 'APIConnectionError'
      ? className
      : asErrorLike(error)?.name;
  const failure = (type: ModelErrorType, message: string) =>
    ApplicationFailure.create({ message, type, nonRetryable: false, cause: asCause(error) });
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError') {
    return failure(ModelError.Timeout, `timed out calling ${source}: ${text}`);
  }
  const isConnection =
    name === 'APIConnectionError' ||
    (name === 'TypeError' && asErrorLike(error)?.message === 'fetch failed') ||
    codes.some((code) => CONNECTION_CODES.has(code));
  if (isConnection) return failure(ModelError.Connection, `cannot reach ${source}: ${text}`);
  return failure(ModelError.Unknown, `calling ${source} failed: ${text}`);
}
