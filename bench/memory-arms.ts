import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type ModelProvider, requestFor } from '../src/activities/model/provider';
import { type AgentTarget, Agents } from '../src/clients/agents';
import type { AgentSettings } from '../src/core/agent/agent';
import type { CycleResult, TraceEntry } from '../src/core/cycle/input';
import { type Message, type Usage, ZERO_USAGE, contentText } from '../src/core/cycle/model';
import { isCut } from '../src/core/cycle/output-limits';
import { scratchpadContent } from '../src/core/cycle/prompts';
import { type Scratchpad, memoryChanged } from '../src/core/scratchpad/scratchpad';
import { agentWorkflowId } from '../src/common/ids';
import { traceQuery } from '../src/common/messages/cycle';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { errorMessage } from '../src/common/error-message';
import { type Conversation, type MemoryQuestion, datedMessage } from './memory-data';
import { type Scored, score } from './memory-score';
import { formatMs, progress } from './measure';

/** The ways of holding the conversation, all on the same model. */
export const ARMS = ['scratchpad', 'single-phase', 'transcript', 'none'] as const;
export type ArmName = (typeof ARMS)[number];

export const ARM_LABELS: Record<ArmName, string> = {
  scratchpad: 'scratchpad (two-phase)',
  'single-phase': 'scratchpad (single-phase)',
  transcript: 'transcript window',
  none: 'no memory',
};

/** Whether the arm runs through agent workflows (and so needs Temporal and a worker). */
export function isAgentArm(arm: ArmName): boolean {
  return arm === 'scratchpad' || arm === 'single-phase';
}

/** How a two-phase turn's reflect went, from the cycle's trace. */
export type ReflectOutcome = 'updated' | 'no-call' | 'cut' | 'rejected' | 'unchanged';

/** One turn of an arm: a session's user turn or a question. */
export interface TurnSample {
  kind: 'session' | 'question';
  /** Agent arms: `send` → reply; direct arms: the model call. */
  replyMs: number;
  /** Agent arms: `send` → the cycle's end (reflect included); direct arms: the model call. */
  turnMs: number;
  usage: Usage;
  /** Model calls the turn made. */
  calls: number;
  /** Calls whose output could not be used as the protocol asks (see {@link analyseTrace}). */
  parseErrors: number;
  /** Calls whose output could not be used because they stopped at the output cap. */
  cut: number;
  /** Two-phase arm only. */
  reflect?: ReflectOutcome;
  /** Agent arms: whether the turn's cycle changed the memory (notes aside). */
  memoryChanged?: boolean;
  failed?: string;
}

/** One arm over one conversation. */
export interface ArmRun {
  arm: ArmName;
  conversation: string;
  samples: TurnSample[];
  answers: Scored[];
  /** Why the arm stopped before its questions. */
  error?: string;
}

export interface ArmContext {
  /** Absent when no agent arm runs. */
  client?: Client;
  taskQueue: string;
  /** What the direct arms call: the worker's own provider for the spec. */
  provider: ModelProvider;
  caps: { respond: number; reflect: number };
  /** The scratchpad's budget, and the transcript arm's window, in characters. */
  budgetChars: number;
  /** Makes agent ids unique to this run. */
  runTag: string;
  /** Aborted when the run stops (a signal, the model server gone): no further turn starts. */
  signal?: AbortSignal;
}

/** Reflect's reasons for leaving the memory as it was (workflows/cycle/chat-turn.ts, noUpdateReason). */
function reflectOutcome(entries: readonly TraceEntry[]): ReflectOutcome | undefined {
  const reflect = entries.filter((entry) => entry.phase === 'reflect');
  if (reflect.length === 0) return undefined;
  const noUpdate = reflect.find((entry) => entry.error?.startsWith('no update: '))?.error;
  if (!noUpdate) return 'updated';
  if (noUpdate.includes('did not call')) return noUpdate.includes('cut at the output cap') ? 'cut' : 'no-call';
  if (noUpdate.includes('was rejected')) return 'rejected';
  return 'unchanged';
}

/**
 * A cycle's model calls (one per phase and iteration in its trace), its parse errors and its cut calls. A parse error
 * is a call whose output could not be used as the protocol asks, though the output cap did not stop it: a reflect that
 * produced no `update_scratchpad` call or an update the schema rejected, a call dispatched `parse_error` or
 * `unknown_tool`, or a respond call offered tools whose reply is still raw JSON (`#json`/`#text`: the reply object did
 * not decode). The same failures when the call stopped at its output cap count as cut instead.
 */
export function analyseTrace(trace: readonly TraceEntry[]): {
  calls: number;
  parseErrors: number;
  cut: number;
  reflect?: ReflectOutcome;
} {
  const byCall = new Map<string, TraceEntry[]>();
  for (const entry of trace) {
    const key = `${entry.phase ?? 'task'}:${entry.iteration}`;
    byCall.set(key, [...(byCall.get(key) ?? []), entry]);
  }
  const reflect = reflectOutcome(trace);
  let parseErrors = 0;
  let cut = 0;
  for (const entries of byCall.values()) {
    const phase = entries[0]!.phase ?? 'task';
    const outcome = phase === 'reflect' ? reflectOutcome(entries) : undefined;
    const rawJson = entries.some(
      (entry) =>
        phase === 'respond' &&
        entry.dispatch === 'reply' &&
        entry.request.tools.length > 0 &&
        entry.response.text.trim().startsWith('{'),
    );
    const broken =
      outcome === 'no-call' ||
      outcome === 'cut' ||
      outcome === 'rejected' ||
      rawJson ||
      entries.some((entry) => entry.dispatch === 'parse_error' || entry.dispatch === 'unknown_tool');
    if (!broken) continue;
    if (outcome === 'cut' || entries.some((entry) => isCut(entry.response))) cut++;
    else parseErrors++;
  }
  return { calls: byCall.size, parseErrors, cut, ...(reflect && { reflect }) };
}

function agentIdOf(context: ArmContext, arm: ArmName, conversation: string): string {
  const safe = conversation.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `bench-memory-${arm}-${safe}-${context.runTag}`;
}

/** A turn's reply, its sample, and the memory its cycle ended with. */
interface AgentTurn {
  reply: string;
  sample: TurnSample;
  after?: Scratchpad;
}

/** One `send` to an agent, measured to the reply and to the cycle's end, then read back from the cycle. */
async function agentTurn(
  client: Client,
  target: AgentTarget,
  message: string,
  kind: TurnSample['kind'],
): Promise<AgentTurn> {
  const agents = new Agents(client);
  const start = performance.now();
  const answer = await agents.send(target, { message });
  const replyMs = performance.now() - start;
  const handle = client.workflow.getHandle<AgentCycleWorkflow>(answer.cycleId);
  const result = (await handle.result()) as CycleResult;
  const turnMs = performance.now() - start;
  // The before-state from the cycle's history; the trace by query (the worker replays the closed cycle).
  const states = await agents.cycleStates(answer.cycleId);
  const trace = await handle.query(traceQuery);
  const { calls, parseErrors, cut, reflect } = analyseTrace(trace);
  const failed = result.outcome === 'failed' ? (result.error ?? 'the cycle failed') : undefined;
  const sample: TurnSample = {
    kind,
    replyMs,
    turnMs,
    usage: result.usage,
    calls,
    parseErrors,
    cut,
    ...(reflect && { reflect }),
    memoryChanged: memoryChanged(states.input.before, result.after),
    ...(failed && { failed }),
  };
  return { reply: answer.reply ?? result.reply ?? '', sample, after: result.after };
}

async function terminate(client: Client, agentId: string, reason: string): Promise<void> {
  await client.workflow
    .getHandle(agentWorkflowId(agentId))
    .terminate(reason)
    .catch(() => undefined);
}

const excerpt = (text: string, length = 70) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

function questionLine(label: string, scored: Scored, ms: number): string {
  const mark = scored.correct ? 'right' : scored.stale ? 'stale' : 'wrong';
  return `${label} ${scored.question.id}: ${mark} in ${formatMs(ms)} ms: "${excerpt(scored.reply)}"`;
}

/** Turns in a row that may fail before an arm gives up: the model is not answering at all. */
const MAX_FAILED_IN_A_ROW = 3;

/** Two-phase or single-phase: an agent takes every session turn, then each question goes to a fork of its memory. */
async function runAgentArm(context: ArmContext, arm: ArmName, conversation: Conversation): Promise<ArmRun> {
  const client = context.client!;
  const agents = new Agents(client);
  const run: ArmRun = { arm, conversation: conversation.id, samples: [], answers: [] };
  // No work tools: respond answers from memory alone, as the direct arms do (they are offered none either).
  const settings: Partial<AgentSettings> = {
    twoPhase: arm === 'scratchpad',
    tools: [],
    budgetChars: context.budgetChars,
    maxOutputTokens: { respond: context.caps.respond, reflect: context.caps.reflect },
  };
  const agentId = agentIdOf(context, arm, conversation.id);
  const target: AgentTarget = { agentId, taskQueue: context.taskQueue, settings };
  const total = conversation.sessions.reduce((sum, session) => sum + session.turns.length, 0);
  let memory: Scratchpad | undefined;
  try {
    await agents.configure(target, settings);
    let index = 0;
    let failedInARow = 0;
    for (const session of conversation.sessions) {
      for (const text of session.turns) {
        context.signal?.throwIfAborted();
        const turn = await agentTurn(client, target, datedMessage(text, session.date), 'session');
        run.samples.push(turn.sample);
        failedInARow = turn.sample.failed ? failedInARow + 1 : 0;
        if (turn.after) memory = turn.after;
        const { sample } = turn;
        const what = sample.failed
          ? `FAILED: ${excerpt(sample.failed, 200)}`
          : `${sample.reflect ? `reflect ${sample.reflect}` : sample.memoryChanged ? 'memory changed' : 'memory unchanged'}`;
        progress(
          `${arm} ${session.id} turn ${++index}/${total}: reply ${formatMs(sample.replyMs)} ms, ` +
            `cycle ${formatMs(sample.turnMs)} ms, ${what}`,
        );
        if (failedInARow >= MAX_FAILED_IN_A_ROW) throw new Error(`${failedInARow} turns in a row failed`);
      }
    }
  } catch (error) {
    if (context.signal?.aborted) throw error;
    run.error = errorMessage(error);
    progress(`${arm}: stopped after ${run.samples.length} turns: ${run.error}`);
    return run;
  } finally {
    await terminate(client, agentId, 'bench:memory: sessions done');
  }
  // Each question to its own fork (a new agent given the memory the sessions left), so one question's reflect
  // cannot write into the memory the next is answered from.
  const state = memory && { ...memory, last_updated: new Date().toISOString() };
  // The memory as respond is shown it, to tell a fact never written down from one the model did not use.
  const memoryText = memory ? contentText(scratchpadContent(memory, '', '')) : '';
  for (const [index, question] of conversation.questions.entries()) {
    context.signal?.throwIfAborted();
    const fork: AgentTarget = { ...target, agentId: `${agentId}-q${index + 1}` };
    try {
      if (state) await agents.import(fork, state);
      else await agents.configure(fork, settings);
      const turn = await agentTurn(client, fork, datedMessage(question.question, question.date), 'question');
      run.samples.push(turn.sample);
      const scored = score(question, turn.reply, turn.sample.failed, memoryText);
      run.answers.push(scored);
      progress(questionLine(arm, scored, turn.sample.replyMs));
    } catch (error) {
      run.answers.push(score(question, '', errorMessage(error), memoryText));
      progress(`${arm} ${question.id}: FAILED: ${errorMessage(error)}`);
    } finally {
      await terminate(client, fork.agentId, 'bench:memory: question answered');
    }
  }
  return run;
}

const ATTEMPTS = 3;

/** One call straight to the provider, retried as the worker would retry a transient failure. */
async function directCall(
  context: ArmContext,
  messages: Message[],
): Promise<{ reply: string; usage: Usage; ms: number }> {
  const request = requestFor(context.provider, {
    system: 'respond',
    messages,
    tools: [],
    toolChoice: 'auto',
    maxTokens: context.caps.respond,
  });
  for (let attempt = 1; ; attempt++) {
    const start = performance.now();
    try {
      const response = await context.provider.complete(request);
      return { reply: response.text, usage: response.usage, ms: performance.now() - start };
    } catch (error) {
      const permanent = error instanceof ApplicationFailure && error.nonRetryable;
      if (permanent || attempt >= ATTEMPTS) throw error;
      await sleep(1000 * 2 ** (attempt - 1));
    }
  }
}

/** The newest exchanges whose characters together fit in `budget`, oldest first, as messages. */
export function transcriptWindow(history: readonly { user: string; assistant: string }[], budget: number): Message[] {
  const kept: { user: string; assistant: string }[] = [];
  let used = 0;
  for (let index = history.length - 1; index >= 0; index--) {
    const exchange = history[index]!;
    const size = exchange.user.length + exchange.assistant.length;
    if (used + size > budget) break;
    used += size;
    kept.unshift(exchange);
  }
  return kept.flatMap(({ user, assistant }) => [
    { role: 'user' as const, content: user },
    { role: 'assistant' as const, content: assistant },
  ]);
}

function directSample(kind: TurnSample['kind'], call: { usage: Usage; ms: number }): TurnSample {
  return { kind, replyMs: call.ms, turnMs: call.ms, usage: call.usage, calls: 1, parseErrors: 0, cut: 0 };
}

function failedSample(kind: TurnSample['kind'], error: unknown): TurnSample {
  const failed = errorMessage(error);
  return { kind, replyMs: 0, turnMs: 0, usage: ZERO_USAGE, calls: 1, parseErrors: 0, cut: 0, failed };
}

/**
 * Transcript: a plain chat loop whose prompt is the newest exchanges that fit the scratchpad's budget in characters,
 * then the new message. None: each question alone. Both call the provider directly, on the respond system prompt.
 */
async function runDirectArm(context: ArmContext, arm: ArmName, conversation: Conversation): Promise<ArmRun> {
  const run: ArmRun = { arm, conversation: conversation.id, samples: [], answers: [] };
  const history: { user: string; assistant: string }[] = [];
  const window = () => (arm === 'transcript' ? transcriptWindow(history, context.budgetChars) : []);
  if (arm === 'transcript') {
    const total = conversation.sessions.reduce((sum, session) => sum + session.turns.length, 0);
    let index = 0;
    for (const session of conversation.sessions) {
      for (const text of session.turns) {
        context.signal?.throwIfAborted();
        const user = datedMessage(text, session.date);
        try {
          const call = await directCall(context, [...window(), { role: 'user', content: user }]);
          run.samples.push(directSample('session', call));
          // An empty reply would be an empty assistant message, which some servers refuse.
          history.push({ user, assistant: call.reply.trim() || '(no reply)' });
          progress(`${arm} ${session.id} turn ${++index}/${total}: ${formatMs(call.ms)} ms`);
        } catch (error) {
          run.samples.push(failedSample('session', error));
          history.push({ user, assistant: '(no reply)' });
          progress(`${arm} ${session.id} turn ${++index}/${total}: FAILED: ${errorMessage(error)}`);
        }
      }
    }
  }
  for (const question of conversation.questions) {
    context.signal?.throwIfAborted();
    const before = window();
    await askDirect(context, run, question, before, before.map((message) => message.content).join('\n'));
  }
  return run;
}

async function askDirect(context: ArmContext, run: ArmRun, question: MemoryQuestion, before: Message[], shown: string) {
  try {
    const content = datedMessage(question.question, question.date);
    const call = await directCall(context, [...before, { role: 'user', content }]);
    run.samples.push(directSample('question', call));
    const scored = score(question, call.reply, undefined, shown);
    run.answers.push(scored);
    progress(questionLine(run.arm, scored, call.ms));
  } catch (error) {
    run.samples.push(failedSample('question', error));
    run.answers.push(score(question, '', errorMessage(error), shown));
    progress(`${run.arm} ${question.id}: FAILED: ${errorMessage(error)}`);
  }
}

/** One arm over one conversation. */
export function runArm(context: ArmContext, arm: ArmName, conversation: Conversation): Promise<ArmRun> {
  return isAgentArm(arm) ? runAgentArm(context, arm, conversation) : runDirectArm(context, arm, conversation);
}
