import {
  buildReflectMessages,
  buildRespondMessages,
  type TurnExchange,
  turnExchange,
} from '../../core/cycle/chat-messages';
import type { ChatTurn, CycleOutcome } from '../../core/cycle/input';
import { messagesChars } from '../../core/cycle/model';
import { chatCalls } from '../../core/cycle/parse';
import { hasObservations, stepLabel } from '../../core/cycle/plan-calls';
import { traceEntries, traceEntry } from '../../core/cycle/trace';
import type { CycleRun } from './cycle-run';
import type { ModelResponse } from '../../core/cycle/model';
import { isCut, outputCap } from '../../core/cycle/output-limits';
import type { Handled } from '../../core/cycle/plan-calls';
import { memoryChanged } from '../../core/scratchpad/scratchpad';
import { appendNote } from '../../core/scratchpad/update';
import { headCodePoints } from '../../core/text';
import { runCalls } from './run-calls';

/** Respond: from the scratchpad and this input alone, running tools within the turn. */
async function respond(run: CycleRun, chat: ChatTurn): Promise<{ reply: string; outcome: CycleOutcome }> {
  const { input } = run;
  const { message, twoPhase } = chat;
  // This turn's iterations that ran tools, sent back as the model's calls and their results (design.md, Respond).
  const exchanges: TurnExchange[] = [];
  let lastText = '';
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    run.iterations = iteration;
    // In two-phase mode update_scratchpad is not offered to respond; memory changes only in reflect.
    const offered = { work: run.workTools(), update: !twoPhase, done: false };
    const tools = offered.update ? [...offered.work, 'update_scratchpad'] : offered.work;
    run.directivesFor(iteration);
    const build = () => ({
      system: twoPhase ? 'respond' : 'respond_single',
      messages: buildRespondMessages(run.state, message, run.directives, exchanges),
      tools,
      toolChoice: 'auto' as const,
      model: input.model,
      maxTokens: outputCap(input, 'respond'),
    });
    // Rebuilt from a smaller memory when the context refuses it; the trace counts what was sent last.
    let sent = build();
    const response = await run.callModel(sent, () => (sent = build()), true);
    const { messages } = sent;
    lastText = response.text;
    run.replyCut = isCut(response);
    const parsed = chatCalls(response, tools);
    const handled = await runCalls(run, parsed, iteration, { offered, notes: false });
    const promptChars = messagesChars(messages);
    const call = { iteration, phase: 'respond' as const, request: { promptChars, tools }, response, calls: parsed };
    run.trace.push(...traceEntries(call, handled));
    if (!hasObservations(handled)) {
      run.trace.push(traceEntry(call, { dispatch: 'reply' }));
      run.publish('reply');
      return { reply: response.text, outcome: 'completed' };
    }
    exchanges.push(turnExchange(iteration, response.text, handled));
    run.publish(stepLabel(handled, 'reply'));
  }
  return { reply: lastText, outcome: 'max_iterations' };
}

/** Why a reflect left the memory as it was: no call, a refused update, or one that changed nothing. */
function noUpdateReason(response: ModelResponse, handled: readonly Handled[]): string {
  const cut = isCut(response) ? ' (its reply was cut at the output cap)' : '';
  if (handled.length === 0) return `the model did not call update_scratchpad${cut}`;
  const refused = handled.find(({ step }) => 'error' in step && step.error);
  if (refused && 'error' in refused.step)
    return `the update was rejected: ${headCodePoints(refused.step.error ?? '', 300)}`;
  return 'the update changed nothing';
}

/**
 * Reflect: a separate call, forced to `update_scratchpad`, merged through safe apply (design.md, Reflect). One that
 * leaves the memory as it was says so (design.md, Never silent): a note, a trace entry, and the cycle's result.
 */
async function reflect(run: CycleRun, chat: ChatTurn, reply: string): Promise<void> {
  const { input } = run;
  const before = run.state;
  const tools = ['update_scratchpad'];
  const build = () => ({
    system: 'reflect',
    messages: buildReflectMessages(run.state, chat.message, reply),
    tools,
    toolChoice: { name: 'update_scratchpad' },
    model: chat.reflectModel ?? input.model,
    maxTokens: outputCap(input, 'reflect'),
  });
  let sent = build();
  const response = await run.callModel(sent, () => (sent = build()));
  const { messages } = sent;
  const parsed = chatCalls(response, tools);
  const iteration = run.iterations + 1;
  const offered = { work: [], update: true, done: false };
  const handled = await runCalls(run, parsed, iteration, { offered, notes: false });
  const request = { promptChars: messagesChars(messages), tools };
  const call = { iteration, phase: 'reflect' as const, request, response, calls: parsed };
  run.trace.push(...traceEntries(call, handled));
  if (!memoryChanged(before, run.state)) {
    const why = noUpdateReason(response, handled);
    run.memoryUnchanged = why;
    run.state = { ...run.state, notes: appendNote(run.state.notes, `[REFLECT] no update: ${why}`) };
    run.trace.push(traceEntry(call, { dispatch: 'reflect', error: `no update: ${why}` }));
  }
  // An update enforced the budget already; a reflect that made none still leaves the scratchpad within it (a budget
  // lowered by `configure` since the last turn).
  await run.enforceBudget();
  run.publish('reflect');
}

/**
 * One reflective chat turn (design.md, Chat turns): respond, then reflect unless in single-phase mode. Once respond
 * ends, the features hear the reply (design.md, The reply first); reflect's model call goes out in the same task.
 */
export async function runChatTurn(run: CycleRun, chat: ChatTurn): Promise<{ reply: string; outcome: CycleOutcome }> {
  const turn = await respond(run, chat);
  // Kept on the run so a reflect that fails for good does not also lose the reply the user paid for.
  run.reply = turn.reply;
  run.stream.end({ type: 'done', reply: turn.reply, outcome: turn.outcome, ...(run.replyCut && { cut: true }) });
  if (!chat.twoPhase) return turn;
  for (const feature of run.features) feature.replied?.({ cycleId: run.cycleId, ...turn });
  await reflect(run, chat, turn.reply);
  return turn;
}
