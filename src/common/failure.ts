import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { errorMessage } from './error-message';

/** The innermost useful message of a failure chain, e.g. `ModelError.Auth: 401 invalid x-api-key`. */
export function failureMessage(error: unknown): string {
  let current: unknown = error;
  let message = errorMessage(error);
  while (current instanceof TemporalFailure || (current instanceof Error && current.cause)) {
    const cause: unknown = (current as Error).cause;
    if (current instanceof ApplicationFailure) {
      message = current.type ? `${current.type}: ${current.message}` : current.message;
    } else if (current instanceof Error && !(cause instanceof Error)) {
      message = current.message;
    }
    if (!(cause instanceof Error)) break;
    current = cause;
  }
  return message;
}
