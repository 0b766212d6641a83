import { formatDuration } from '../duration';
import { headCodePoints } from '../text';
import { APPROVAL_ARGS_DISPLAY_CHARS, type Decision } from './approval';
import type { ApprovalPolicy } from './descriptor';
import type { Observation } from './observation';

/*
 * Which calls wait for a person (design.md, Approval). Three sources can ask: the tool's own source (`defineTool({
 * approval: 'ask' })`, an MCP server's `"approve"`), the worker's `SCRATCHPAD_APPROVE` patterns (both folded into the
 * catalogue entry's policy by the worker), and the agent's own `approve` patterns (in the cycle's input). Any one
 * asking is enough: an agent can add approvals, never waive the worker's or the tool's, since a client that can
 * configure an agent is not the operator who runs the worker.
 */

/**
 * Whether `name` matches a tool pattern: `*` any run of characters, `?` one. Matched without a regular expression, in
 * time linear in the product of the lengths, so a pattern of many stars cannot stall a worker.
 */
export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether any of `patterns` matches `name`. */
export function matchesAny(patterns: readonly string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((pattern) => globMatches(pattern, name));
}

/** A tool's policy on a worker: its source's, unless the worker's `SCRATCHPAD_APPROVE` patterns name it. */
export function workerApproval(
  name: string,
  source: ApprovalPolicy | undefined,
  workerPatterns: readonly string[] | undefined,
): ApprovalPolicy {
  return source === 'ask' || matchesAny(workerPatterns, name) ? 'ask' : 'auto';
}

/** An MCP server's `"approve"`: `true` asks for all its tools, a list for the tools it names (the server's own names). */
export function mcpApproval(ownName: string, approve: boolean | readonly string[] | undefined): ApprovalPolicy {
  if (approve === true) return 'ask';
  return Array.isArray(approve) && matchesAny(approve, ownName) ? 'ask' : 'auto';
}

/**
 * Whether a call of `name` waits for a decision: the catalogue's policy (the source's and the worker's) or the agent's
 * patterns ask. A tool the catalogue does not list (a cycle from before catalogues) asks only through the agent.
 */
export function needsApproval(
  name: string,
  catalogued: ApprovalPolicy | undefined,
  agentPatterns: readonly string[] | undefined,
): boolean {
  return catalogued === 'ask' || matchesAny(agentPatterns, name);
}

/** Arguments as a person sees them while deciding: JSON, cut to {@link APPROVAL_ARGS_DISPLAY_CHARS}. */
export function displayArgs(args: unknown): string {
  const json = JSON.stringify(args) ?? 'null';
  return json.length > APPROVAL_ARGS_DISPLAY_CHARS ? `${headCodePoints(json, APPROVAL_ARGS_DISPLAY_CHARS - 1)}…` : json;
}

/**
 * The prefix of a cycle's call ids: none for a top-level cycle, `sub1.2-` for the second sub-agent of its first
 * (`…/sub/1/sub/2`), so ids stay unique across an agent's tree of cycles, which its `decide` addresses by id alone.
 */
export function callIdPrefix(cycleId: string): string {
  const subs: string[] = [];
  let rest = cycleId;
  for (;;) {
    const at = rest.lastIndexOf('/sub/');
    const n = rest.slice(at + 5);
    if (at < 0 || n === '' || !/^\d+$/.test(n)) break;
    subs.unshift(n);
    rest = rest.slice(0, at);
  }
  return subs.length > 0 ? `sub${subs.join('.')}-` : '';
}

/** The call id of the `n`-th call of a cycle that waited, made at `iteration`: `3.1`, `sub1-2.1`. */
export function approvalCallId(cycleId: string, iteration: number, n: number): string {
  return `${callIdPrefix(cycleId)}${iteration}.${n}`;
}

/** The reason a wait that ran out records: the person never decided. */
export function timeoutReason(timeoutMs: number): string {
  return `timed out after ${formatDuration(timeoutMs)} without a decision`;
}

/** The observation the model gets for a call that did not run: `denied by <who>: <reason>`. */
export function deniedObservation(decision: Pick<Decision, 'by' | 'reason'>): Observation {
  return { ok: false, error: `denied by ${decision.by}: ${decision.reason ?? 'no reason given'}` };
}

/** An approved call's observation, noting when the person changed its arguments (and to what). */
export function approvedObservation(
  observation: Observation,
  decision: Pick<Decision, 'by' | 'editedArgs'>,
): Observation {
  if (decision.editedArgs === undefined) return observation;
  const note = `the arguments were changed by ${decision.by} before it ran; it ran with ${decision.editedArgs}`;
  return { ...observation, approval: note };
}

/** The approval fields a cycle passes on to the cycles it starts (sub-agents keep their parent's). */
export function approvalInputOf(from: { approve?: string[] | null; approvalTimeoutMs?: number }): {
  approve?: string[];
  approvalTimeoutMs?: number;
} {
  return {
    ...(from.approve ? { approve: from.approve } : {}),
    ...(from.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: from.approvalTimeoutMs } : {}),
  };
}
