import { log } from '@temporalio/workflow';
import type { z } from 'zod';
import { describeIssues } from './workflow-input';

// A signal has no caller to refuse, and a throw in its handler would fail the workflow task for good.
/** A signal's argument parsed by `schema`, or undefined with a warning in the worker's log. */
export function signalArgs<S extends z.ZodType>(schema: S, raw: unknown, signal: string): z.output<S> | undefined {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  log.warn(`dropped a ${signal} signal: ${describeIssues(parsed.error)}`);
  return undefined;
}
