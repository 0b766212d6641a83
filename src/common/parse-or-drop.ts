import { log } from '@temporalio/workflow';
import type { z } from 'zod';
import { describeIssues } from './workflow-input';

// A signal has no caller to refuse, and a throw in its handler would fail the workflow task for good.
/**
 * A signal's argument parsed by `schema`, or undefined with a warning in the worker's log; `dropped` hears the reason,
 * to leave a note where the user looks.
 */
export function parsedOrDropped<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  signal: string,
  dropped?: (reason: string) => void,
): z.output<S> | undefined {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const reason = describeIssues(parsed.error);
  log.warn(`dropped a ${signal} signal: ${reason}`);
  dropped?.(reason);
  return undefined;
}
