import {
  ActivityFailure,
  CancellationScope,
  TimeoutFailure,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { ToolCallInput, Observation } from '../../core/tools/observation';
import { SCRATCHPAD_READ } from '../../core/tools/observation';
import { CYCLE_TOOLS } from '../../core/tools/catalogue';
import type { ApprovalPolicy, CatalogueEntry } from '../../core/tools/descriptor';
import { selectTools } from '../../core/tools/select';
import { failureMessage } from '../../common/failure';
import { fallbackIdempotencyKey, unknownOutcomeObservation } from '../../core/tools/idempotency';
import { listToolsOptions, toolActivityOptions } from './activity-options';
import { heartbeatTimeoutOf } from '../../core/cycle/liveness';
import type { ParsedCycleInput } from '../../core/cycle/input';

/** A phase offers its verbs itself; a glob must not make them work tools. */
const VERBS: readonly string[] = ['update_scratchpad', 'done'];

/** What the model is told when a call of a tool of the user's failed for good. */
function toolFailure(entry: CatalogueEntry, error: ActivityFailure): string {
  const cause = failureMessage(error);
  if (!entry.policy.retry) {
    return `${entry.name} did not finish and was not run again: it must not run twice (retry: false), so whether it took effect is unknown. Cause: ${cause}`;
  }
  return `${entry.name} failed on every attempt: ${cause}`;
}

/** What the model is told when an approved call did not finish: it is not run again without a new decision. */
function onceFailure(name: string, error: ActivityFailure): string {
  return `${name} was approved to run once and did not finish, so it was not run again; whether it took effect is unknown. Cause: ${failureMessage(error)}`;
}

/** Why a call that ran at most once was not run again, as the model is told it. */
function notRunAgain(name: string, once: boolean): string {
  return once
    ? `${name} was approved to run once and did not finish, so it was not run again`
    : `${name} did not finish and was not run again: it must not run twice (retry: false)`;
}

/**
 * Whether an attempt died without a result: no heartbeat in time (its worker died) or past its start-to-close
 * timeout. A tool's own error, or an MCP server's, is a result: the call failed, it did not vanish.
 */
function diedWithoutResult(error: ActivityFailure): boolean {
  const { cause } = error;
  return (
    cause instanceof TimeoutFailure && (cause.timeoutType === 'HEARTBEAT' || cause.timeoutType === 'START_TO_CLOSE')
  );
}

/**
 * A cycle's tools (design.md, Tools): the worker's catalogue, listed once at the start and recorded in history so
 * a replay never asks an MCP server; the selection the cycle's names and globs make from it; and each call run in
 * the `runTool` activity under its tool's policy.
 */
export class CycleTools {
  /** The work tools selected for this cycle; the input's names until the catalogue is listed. */
  selected: readonly string[];
  private readonly catalogue = new Map<string, CatalogueEntry>();
  private readonly proxies = new Map<string, Activities['runTool']>();

  constructor(
    private readonly patterns: readonly string[] | undefined,
    /** Names of the workflow-side tools the cycle's features handle or own. */
    private readonly handled: readonly string[],
    /** The cycle's retry and heartbeat settings, which each tool's own policy adjusts. */
    private readonly liveness: Pick<ParsedCycleInput, 'maxAttempts' | 'heartbeatTimeoutMs'>,
    private readonly runTool: Activities['runTool'],
  ) {
    this.selected = patterns ?? CYCLE_TOOLS;
  }

  /** The worker's approval policy for a tool; undefined when the cycle did not list the catalogue or it lacks the tool. */
  policyOf(name: string): ApprovalPolicy | undefined {
    return this.catalogue.get(name)?.policy.approval;
  }

  /** Lists the catalogue and selects from it; returns the lines for notes: nothing is dropped unseen. */
  async load(): Promise<string[]> {
    const { listTools } = proxyLocalActivities<Activities>(listToolsOptions());
    // Not cancelled mid-way, as gcObservations (archive-check.ts): a replay must find its marker.
    const listing = await CancellationScope.nonCancellable(() => listTools());
    for (const entry of listing.tools) this.catalogue.set(entry.name, entry);
    // Named explicitly, these pass through: `scratchpad_read` joins on its own otherwise.
    const workflowSide = [SCRATCHPAD_READ, ...this.handled.filter((name) => !VERBS.includes(name))];
    const selection = selectTools(this.patterns ?? listing.defaults, listing.tools, workflowSide);
    this.selected = selection.offered;
    // A built-in that cannot run here is worth a note only to a cycle that names it; the worker says it at start.
    const unavailable = listing.unavailable ?? {};
    const reasons = new Set(Object.values(unavailable));
    const absent = selection.unmatched.filter((name) => !Object.hasOwn(unavailable, name));
    return [
      ...(absent.length > 0 ? [`[TOOLS] not on this worker, so not offered: ${absent.join(', ')}`] : []),
      ...selection.unmatched.flatMap((name) =>
        Object.hasOwn(unavailable, name) ? [`[TOOLS] ${unavailable[name]}`] : [],
      ),
      ...listing.failures.filter((failure) => !reasons.has(failure)).map((failure) => `[TOOLS] ${failure}`),
    ];
  }

  /**
   * Runs one call under its tool's policy. A tool of the user's that fails for good (its MCP server died on every
   * attempt) is the model's to work around, not the end of the cycle. An approved call (`once`) runs at most once,
   * whatever its tool: a person approved one run, not a retry. A call that runs at most once and whose attempt died
   * without a result has an unknown outcome, which the observation says with the call's idempotency key.
   */
  async run(call: ToolCallInput, once = false): Promise<Observation> {
    const entry = this.catalogue.get(call.name);
    try {
      return await this.activityFor(entry, once)(call);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const single = once || entry?.policy.retry === false;
      if (single && diedWithoutResult(error)) {
        const key = call.idempotencyKey ?? fallbackIdempotencyKey(call.cycleId, call.step);
        return unknownOutcomeObservation(notRunAgain(call.name, once), { key, cause: failureMessage(error) });
      }
      if (once) return { ok: false, error: onceFailure(call.name, error) };
      if (!entry || entry.source === 'builtin') throw error;
      return { ok: false, error: toolFailure(entry, error) };
    }
  }

  /** The `runTool` activity with a tool's own policy: its timeout, and a single attempt for `retry: false`. */
  private activityFor(entry: CatalogueEntry | undefined, once: boolean): Activities['runTool'] {
    const retry = (entry?.policy.retry ?? true) && !once;
    const timeoutMs = entry?.policy.timeoutMs;
    if (retry && timeoutMs === undefined) return this.runTool;
    const key = `${retry}:${timeoutMs ?? ''}`;
    let proxy = this.proxies.get(key);
    if (!proxy) {
      proxy = proxyActivities<Activities>(
        toolActivityOptions(this.liveness.maxAttempts, { retry, timeoutMs }, heartbeatTimeoutOf(this.liveness, 'tool')),
      ).runTool;
      this.proxies.set(key, proxy);
    }
    return proxy;
  }
}
