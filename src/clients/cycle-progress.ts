import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { CycleResult } from '../core/cycle/input';
import type { ModelRequest, ModelResponse, Usage } from '../core/cycle/model';
import type { Observation, ToolCallInput } from '../core/tools/observation';
import type { PendingApproval } from '../core/tools/approval';
import {
  type HistoryEvent,
  type HistoryStreamOptions,
  decodeFirst,
  eventMillis,
  historyEvents,
} from './history-stream';

/** Most characters of a call's arguments in a progress step. */
export const SHORT_ARGS_CHARS = 80;

/** What a workflow that runs cycles (a cycle, an agent, a staged run) did, step by step, as its history shows it. */
export type ProgressStep =
  | { kind: 'model-started'; call: number; phase: string }
  | { kind: 'model-ended'; call: number; ms: number; usage?: Usage; calls?: number; error?: string }
  | { kind: 'tool'; name: string; args: string }
  | { kind: 'observation'; name: string; bytes: number; ok: boolean; error?: string }
  | { kind: 'update'; sections: string[] }
  | { kind: 'done'; summary: string }
  | { kind: 'directive'; text: string }
  | { kind: 'approval-waiting'; callId: string; tool: string; args: string }
  | { kind: 'approval-decided'; callId: string }
  | { kind: 'verification-started'; command: string }
  | { kind: 'verification-ended'; passed: boolean; error?: string }
  | { kind: 'child-started'; workflowId: string; type: string }
  | { kind: 'child-ended'; workflowId: string; status: string; result?: CycleResult; error?: string }
  | { kind: 'closed'; status: string; result?: CycleResult; error?: string };

/** A call's arguments as one short line: JSON (or text already made for display), cut at {@link SHORT_ARGS_CHARS}. */
export function shortArgs(args: unknown): string {
  const text = (typeof args === 'string' ? args : (JSON.stringify(args ?? {}) ?? '')).replace(/\s+/g, ' ');
  return text.length > SHORT_ARGS_CHARS ? `${text.slice(0, SHORT_ARGS_CHARS - 1)}…` : text;
}

/** A failure recorded in history, in one line: the innermost application failure's `type: message`. */
export function failureText(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  let message = failure?.message ?? 'unknown failure';
  for (let current = failure; current; current = current.cause) {
    const type = current.applicationFailureInfo?.type;
    if (current.message) message = type ? `${type}: ${current.message}` : current.message;
  }
  return message;
}

type Scheduled = { activity: string; at: number; call?: number; name?: string };
type Planned = { name: string; input: unknown };

/** Steps of a workflow's calls the model asked for that run in the workflow: they show in the order the model gave. */
function workflowSideStep(call: Planned): ProgressStep {
  const args = (call.input ?? {}) as Record<string, unknown>;
  if (call.name === 'update_scratchpad') return { kind: 'update', sections: Object.keys(args) };
  if (call.name === 'done') {
    return { kind: 'done', summary: typeof args.summary === 'string' ? args.summary : '(no summary)' };
  }
  return { kind: 'tool', name: call.name, args: shortArgs(args) };
}

/** Turns history events into {@link ProgressStep}s; one instance per workflow run. */
export class StepReader {
  private readonly scheduled = new Map<string, Scheduled>();
  /** The last response's calls not shown yet; a `runTool` start shows those before it. */
  private planned: Planned[] = [];
  private modelCalls = 0;
  private waiting = new Set<string>();

  constructor(private readonly client: Client) {}

  /** The steps one event adds, in order. */
  async read(event: HistoryEvent): Promise<ProgressStep[]> {
    const id = String(event.eventId ?? '');
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) return this.started(id, scheduled, eventMillis(event));
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) return this.ended(String(completed.scheduledEventId), eventMillis(event), { completed });
    const failure =
      event.activityTaskFailedEventAttributes?.failure ??
      event.activityTaskTimedOutEventAttributes?.failure ??
      (event.activityTaskCanceledEventAttributes ? { message: 'cancelled' } : undefined);
    const failedId =
      event.activityTaskFailedEventAttributes?.scheduledEventId ??
      event.activityTaskTimedOutEventAttributes?.scheduledEventId ??
      event.activityTaskCanceledEventAttributes?.scheduledEventId;
    if (failure) return this.ended(String(failedId), eventMillis(event), { error: failureText(failure) });
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled?.signalName === 'directive') {
      const text = await decodeFirst<string>(this.client, signaled.input);
      return typeof text === 'string' ? [{ kind: 'directive', text }] : [];
    }
    const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.approvals;
    if (memo) return this.approvals(await decodeFirst<PendingApproval[]>(this.client, { payloads: [memo] }));
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowId) {
      return [{ kind: 'child-started', workflowId: child.workflowId, type: child.workflowType?.name ?? '' }];
    }
    const childEnd = await this.childEnded(event);
    if (childEnd) return [childEnd];
    const closed = await this.closed(event);
    return closed ? [...this.flush(), closed] : [];
  }

  private async started(
    id: string,
    attributes: temporal.api.history.v1.IActivityTaskScheduledEventAttributes,
    at: number,
  ): Promise<ProgressStep[]> {
    const activity = attributes.activityType?.name ?? '';
    if (activity === 'callModel') {
      const request = await decodeFirst<ModelRequest>(this.client, attributes.input);
      const call = ++this.modelCalls;
      this.scheduled.set(id, { activity, at, call });
      return [...this.flush(), { kind: 'model-started', call, phase: request?.system ?? 'model' }];
    }
    if (activity === 'runTool') {
      const input = await decodeFirst<ToolCallInput>(this.client, attributes.input);
      const name = input?.name ?? 'tool';
      this.scheduled.set(id, { activity, at, name });
      const index = this.planned.findIndex((call) => call.name === name);
      const before = index < 0 ? [] : this.planned.splice(0, index + 1).slice(0, -1);
      return [...before.map(workflowSideStep), { kind: 'tool', name, args: shortArgs(input?.args) }];
    }
    if (activity === 'runVerification') {
      const request = await decodeFirst<{ command?: string }>(this.client, attributes.input);
      this.scheduled.set(id, { activity, at });
      return [{ kind: 'verification-started', command: request?.command ?? '' }];
    }
    return [];
  }

  private async ended(
    id: string,
    at: number,
    outcome: { completed?: temporal.api.history.v1.IActivityTaskCompletedEventAttributes; error?: string },
  ): Promise<ProgressStep[]> {
    const started = this.scheduled.get(id);
    if (!started) return [];
    this.scheduled.delete(id);
    const { error } = outcome;
    if (started.activity === 'callModel') {
      const call = started.call ?? 0;
      const ms = Math.max(0, at - started.at);
      if (error !== undefined) return [{ kind: 'model-ended', call, ms, error }];
      const response = await decodeFirst<ModelResponse>(this.client, outcome.completed?.result);
      this.planned = (response?.toolCalls ?? []).map((tool) => ({ name: tool.name, input: tool.input }));
      return [{ kind: 'model-ended', call, ms, usage: response?.usage, calls: this.planned.length }];
    }
    if (started.activity === 'runTool') {
      const name = started.name ?? 'tool';
      if (error !== undefined) return [{ kind: 'observation', name, bytes: 0, ok: false, error }];
      const observation = await decodeFirst<Observation>(this.client, outcome.completed?.result);
      const bytes = Buffer.byteLength(JSON.stringify(observation ?? null));
      const failed = observation?.ok === false ? { error: observation.error ?? 'tool failed' } : {};
      return [{ kind: 'observation', name, bytes, ok: observation?.ok !== false, ...failed }];
    }
    if (error !== undefined) return [{ kind: 'verification-ended', passed: false, error }];
    const verification = await decodeFirst<{ passed?: boolean }>(this.client, outcome.completed?.result);
    return [{ kind: 'verification-ended', passed: verification?.passed === true }];
  }

  /** The calls of the last response not shown yet: the model's next call or the workflow's end shows them. */
  private flush(): ProgressStep[] {
    return this.planned.splice(0).map(workflowSideStep);
  }

  private approvals(pending: PendingApproval[] | undefined): ProgressStep[] {
    const now = new Set((pending ?? []).map((call) => call.callId));
    const steps: ProgressStep[] = [];
    for (const callId of this.waiting) if (!now.has(callId)) steps.push({ kind: 'approval-decided', callId });
    for (const call of pending ?? []) {
      if (this.waiting.has(call.callId)) continue;
      steps.push({ kind: 'approval-waiting', callId: call.callId, tool: call.tool, args: shortArgs(call.args) });
    }
    this.waiting = now;
    return steps;
  }

  private async childEnded(event: HistoryEvent): Promise<ProgressStep | undefined> {
    const completed = event.childWorkflowExecutionCompletedEventAttributes;
    const failed = event.childWorkflowExecutionFailedEventAttributes;
    const other =
      (event.childWorkflowExecutionCanceledEventAttributes && 'cancelled') ||
      (event.childWorkflowExecutionTerminatedEventAttributes && 'terminated') ||
      (event.childWorkflowExecutionTimedOutEventAttributes && 'timed out');
    const execution =
      completed?.workflowExecution ??
      failed?.workflowExecution ??
      event.childWorkflowExecutionCanceledEventAttributes?.workflowExecution ??
      event.childWorkflowExecutionTerminatedEventAttributes?.workflowExecution ??
      event.childWorkflowExecutionTimedOutEventAttributes?.workflowExecution;
    const workflowId = execution?.workflowId ?? '';
    if (completed) {
      const result = await decodeFirst<CycleResult>(this.client, completed.result);
      return { kind: 'child-ended', workflowId, status: 'completed', ...(result ? { result } : {}) };
    }
    if (failed) return { kind: 'child-ended', workflowId, status: 'failed', error: failureText(failed.failure) };
    return other ? { kind: 'child-ended', workflowId, status: other } : undefined;
  }

  private async closed(event: HistoryEvent): Promise<ProgressStep | undefined> {
    const completed = event.workflowExecutionCompletedEventAttributes;
    if (completed && !completed.newExecutionRunId) {
      const result = await decodeFirst<CycleResult>(this.client, completed.result);
      return { kind: 'closed', status: 'completed', ...(result ? { result } : {}) };
    }
    const failed = event.workflowExecutionFailedEventAttributes;
    if (failed) return { kind: 'closed', status: 'failed', error: failureText(failed.failure) };
    if (event.workflowExecutionCanceledEventAttributes) return { kind: 'closed', status: 'cancelled' };
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    if (terminated) return { kind: 'closed', status: 'terminated', error: terminated.reason || 'terminated' };
    if (event.workflowExecutionTimedOutEventAttributes) return { kind: 'closed', status: 'timed out' };
    return undefined;
  }
}

/** A workflow's steps as they happen, read from its history (see {@link historyEvents}); ends when it closes. */
export async function* progressSteps(
  client: Client,
  workflowId: string,
  options: HistoryStreamOptions = {},
): AsyncGenerator<ProgressStep> {
  let reader = new StepReader(client);
  for await (const event of historyEvents(client, workflowId, options)) {
    yield* await reader.read(event);
    if (event.workflowExecutionContinuedAsNewEventAttributes) reader = new StepReader(client);
  }
}
