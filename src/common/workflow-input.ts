import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';

// A hostile input can have thousands of issues, or keys thousands of characters long: the message stays one short line.
const LISTED_ISSUES = 5;
const ISSUE_CHARS = 200;
const KEY_CHARS = 40;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An issue's path as code spells it, e.g. `handover.cycles[3].usage`; empty for the value itself. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = cut(String(key), KEY_CHARS);
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) return `[${JSON.stringify(name)}]`;
      return index === 0 ? name : `.${name}`;
    })
    .join('');
}

/** One line naming each bad field and what is wrong with it, e.g. `agentId: Invalid input: expected string…`. */
export function describeIssues(error: z.ZodError): string {
  const listed = error.issues.slice(0, LISTED_ISSUES).map((issue) => {
    const path = issuePath(issue.path);
    return cut(`${path ? `${path}: ` : ''}${issue.message}`.replace(/\s+/g, ' '), ISSUE_CHARS);
  });
  const more = error.issues.length - listed.length;
  return more > 0 ? `${listed.join('; ')}; and ${more} more` : listed.join('; ');
}

// For the first line of a workflow or an activity: a `ZodError` thrown there would fail the workflow task, retried
// forever, where a malformed start (the stock CLI, another SDK, a bad continue-as-new) must fail at once.
/** `raw` parsed by `schema`, or a non-retryable failure of `failureType`: `invalid <what>: <issues>`. */
export function parseWorkflowInput<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  failureType: string,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(`invalid ${what}: ${describeIssues(parsed.error)}`, failureType);
}
