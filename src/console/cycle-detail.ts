import type { Client } from '@temporalio/client';
import type { CycleResult, ParsedCycleInput } from '../core/cycle/input';
import type { ModelRequest, ModelResponse, Usage } from '../core/cycle/model';
import { usageCost } from '../core/cycle/cost';
import type { Observation, ToolCallInput } from '../core/tools/observation';
import { type SectionDiff, memoryDiff } from '../core/agent/memory-diff';
import { safeApply } from '../core/scratchpad/update';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { failureText } from '../clients/cycle-progress';
import { type HistoryEvent, decodeFirst, eventMillis } from '../clients/history-stream';
import { fetchHistory } from '../clients/histories';

/** Most characters of a tool's result or a reply shown on a cycle's page. */
export const EXCERPT_CHARS = 2000;

export interface ModelCallView {
  kind: 'model';
  n: number;
  phase: string;
  model?: string;
  ms?: number;
  usage?: Usage;
  cost?: number;
  text?: string;
  calls: { name: string; args: unknown }[];
  error?: string;
}

export interface ToolCallView {
  kind: 'tool';
  /** The model call that asked for it. */
  by: number;
  name: string;
  args: unknown;
  ms?: number;
  ok?: boolean;
  excerpt?: string;
  error?: string;
}

/** A change of one line of memory and the call that made it (`update n.k`: model call n's k-th update). */
export interface AttributedChange {
  section: string;
  part: string | null;
  op: '+' | '-';
  text: string;
  by: string;
}

export interface CycleDetail {
  workflowId: string;
  status: string;
  input?: ParsedCycleInput;
  result?: CycleResult;
  error?: string;
  started?: Date;
  closed?: Date;
  steps: (ModelCallView | ToolCallView)[];
  directives: string[];
  changes: AttributedChange[];
  /** Whether some payload could not be decoded (encrypted with a key this console lacks). */
  undecoded: boolean;
}

function excerpt(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 1) ?? '');
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1)}…` : text;
}

/** Each line of the whole cycle's memory change, tied to the update call that made it, or to the cycle itself. */
export function attributeChanges(
  before: Scratchpad,
  after: Scratchpad,
  updates: readonly { by: string; args: unknown }[],
  done?: string,
): AttributedChange[] {
  const owners = new Map<string, string>();
  let state = before;
  for (const update of updates) {
    const applied = safeApply(state, update.args);
    if (!applied.ok) continue;
    for (const diff of memoryDiff(state, applied.state)) {
      for (const change of diff.changes) {
        owners.set(`${diff.section}\n${diff.part}\n${change.op}\n${change.text}`, update.by);
      }
    }
    state = applied.state;
  }
  const lines = (diffs: SectionDiff[]) =>
    diffs.flatMap((diff) => diff.changes.map((change) => ({ section: diff.section, part: diff.part, ...change })));
  return lines(memoryDiff(before, after)).map((line) => ({
    ...line,
    by: owners.get(`${line.section}\n${line.part}\n${line.op}\n${line.text}`) ?? ruleOwner(line, done),
  }));
}

/**
 * Who made a change no update call made, by the rules the dispatcher follows: a tool's observation line in the notes
 * (`[TOOL] name(…)`), `done` moving the current task to the completed ones, the budget archiving a section.
 */
function ruleOwner(line: { section: string; text: string }, done: string | undefined): string {
  const tool = /^\[TOOL\] ([\w.-]+)\(/.exec(line.text);
  if (line.section === 'NOTES' && tool) return `tool ${tool[1]}`;
  if (done && (line.section === 'TASKS' || line.text.startsWith('[COMPLETED]'))) return done;
  if (/\[archived\b|archive:/i.test(line.text)) return 'budget';
  return 'cycle';
}

class DetailReader {
  readonly detail: CycleDetail;
  private readonly pending = new Map<string, { at: number; view: ModelCallView | ToolCallView }>();
  private modelCalls = 0;
  readonly updates: { by: string; args: unknown }[] = [];
  /** The model call whose `done` ended the cycle. */
  done?: string;

  constructor(
    private readonly client: Client,
    workflowId: string,
  ) {
    this.detail = { workflowId, status: 'running', steps: [], directives: [], changes: [], undecoded: false };
  }

  private async decode<T>(payloads: Parameters<typeof decodeFirst>[1]): Promise<T | undefined> {
    const value = await decodeFirst<T>(this.client, payloads);
    if (value === undefined && (payloads?.payloads?.length ?? 0) > 0) this.detail.undecoded = true;
    return value;
  }

  async read(event: HistoryEvent): Promise<void> {
    const at = eventMillis(event);
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      this.detail.input = await this.decode<ParsedCycleInput>(started.input);
      this.detail.started = new Date(at);
      return;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) return this.scheduled(String(event.eventId), scheduled, at);
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) return this.ended(String(completed.scheduledEventId), at, completed.result);
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    if (failed) return this.failed(String(failed.scheduledEventId), at, failureText(failed.failure));
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled?.signalName === 'directive') {
      const text = await this.decode<string>(signaled.input);
      if (typeof text === 'string') this.detail.directives.push(text);
      return;
    }
    await this.closed(event, at);
  }

  private async scheduled(
    id: string,
    attributes: NonNullable<HistoryEvent['activityTaskScheduledEventAttributes']>,
    at: number,
  ) {
    const activity = attributes.activityType?.name;
    if (activity === 'callModel') {
      const request = await this.decode<ModelRequest>(attributes.input);
      const view: ModelCallView = { kind: 'model', n: ++this.modelCalls, phase: request?.system ?? 'model', calls: [] };
      this.detail.steps.push(view);
      this.pending.set(id, { at, view });
    } else if (activity === 'runTool') {
      const input = await this.decode<ToolCallInput>(attributes.input);
      const view: ToolCallView = { kind: 'tool', by: this.modelCalls, name: input?.name ?? 'tool', args: input?.args };
      this.detail.steps.push(view);
      this.pending.set(id, { at, view });
    }
  }

  private async ended(id: string, at: number, result: Parameters<typeof decodeFirst>[1]) {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    const { view } = pending;
    view.ms = Math.max(0, at - pending.at);
    if (view.kind === 'model') {
      const response = await this.decode<ModelResponse>(result);
      if (!response) return;
      Object.assign(view, { model: response.model, usage: response.usage, text: excerpt(response.text) });
      const cost = usageCost(response.model, response.usage);
      if (cost !== undefined) view.cost = cost;
      view.calls = response.toolCalls.map((call) => ({ name: call.name, args: call.input }));
      let k = 0;
      for (const call of view.calls) {
        if (call.name === 'update_scratchpad') this.updates.push({ by: `update ${view.n}.${++k}`, args: call.args });
        if (call.name === 'done') this.done = `done ${view.n}`;
      }
    } else {
      const observation = await this.decode<Observation>(result);
      view.ok = observation?.ok !== false;
      if (observation?.error) view.error = observation.error;
      view.excerpt = excerpt(observation?.result ?? '');
    }
  }

  private failed(id: string, at: number, error: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    Object.assign(pending.view, { ms: Math.max(0, at - pending.at), error, ok: false });
  }

  private async closed(event: HistoryEvent, at: number): Promise<void> {
    const completed = event.workflowExecutionCompletedEventAttributes;
    const failed = event.workflowExecutionFailedEventAttributes;
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    const status =
      (completed && 'completed') ||
      (failed && 'failed') ||
      (event.workflowExecutionCanceledEventAttributes && 'cancelled') ||
      (terminated && 'terminated') ||
      (event.workflowExecutionTimedOutEventAttributes && 'timed out') ||
      (event.workflowExecutionContinuedAsNewEventAttributes && 'continued');
    if (!status) return;
    this.detail.status = status;
    this.detail.closed = new Date(at);
    if (completed) this.detail.result = await this.decode<CycleResult>(completed.result);
    if (failed) this.detail.error = failureText(failed.failure);
    if (terminated) this.detail.error = terminated.reason || 'terminated';
  }
}

/** A cycle as its history records it: what came in, every call in order, and the memory change by line. */
export async function readCycleDetail(client: Client, workflowId: string, runId?: string): Promise<CycleDetail> {
  const reader = new DetailReader(client, workflowId);
  // The history as it stands: a running cycle's page shows what it has done so far, without waiting for more.
  for (const event of (await fetchHistory(client, workflowId, runId)).events ?? []) await reader.read(event);
  const { detail } = reader;
  const before = detail.input?.before;
  const after = detail.result?.after;
  if (before && after) detail.changes = attributeChanges(before, after, reader.updates, reader.done);
  return detail;
}
