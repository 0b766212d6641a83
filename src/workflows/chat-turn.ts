import { buildReflectMessages, buildRespondMessages, type TurnObservation } from '../core/chat';
import type { CycleOutcome } from '../core/cycle';
import type { ModelResponse } from '../core/model';
import { observationExcerpt } from '../core/observation';
import { type Action, parseTextAction } from '../core/parse-action';
import type { CycleRun } from './cycle-run';

/** Tool calls in a response: native ones, or one JSON-protocol object when the provider has no tool use. */
function actionsOf(response: ModelResponse, offered: readonly string[]): Action[] {
  if (response.toolCalls.length > 0) {
    return response.toolCalls.map((call) => ({
      tool: call.name,
      args: (call.input ?? {}) as Record<string, unknown>,
      callId: call.id,
    }));
  }
  const parsed = parseTextAction(response.text);
  // Prose that is not a tool call is the reply itself.
  return parsed.ok && offered.includes(parsed.action.tool) ? [parsed.action] : [];
}

/** Seed 001 phase 1: respond from the scratchpad and this input alone, running tools within the turn. */
async function respond(run: CycleRun, message: string): Promise<{ reply: string; outcome: CycleOutcome }> {
  const { input } = run;
  const observations: TurnObservation[] = [];
  let lastText = '';
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    run.iterations = iteration;
    const offered = input.twoPhase ? run.workTools() : [...run.workTools(), 'update_scratchpad'];
    const messages = buildRespondMessages(run.state, message, observations, run.directivesFor(iteration));
    const response = await run.callModel({
      system: input.twoPhase ? 'respond' : 'respond_single',
      messages,
      tools: offered,
      toolChoice: 'auto',
      model: input.model,
    });
    lastText = response.text;
    const actions = actionsOf(response, offered);
    const base = {
      iteration,
      phase: 'respond' as const,
      request: { promptChars: messages.reduce((sum, entry) => sum + entry.content.length, 0), tools: offered },
      response: {
        text: response.text.slice(0, 2000),
        toolCalls: actions.map((a) => a.tool),
        stopReason: response.stopReason,
      },
      usage: response.usage,
    };
    // In two-phase mode update_scratchpad is not offered to respond; memory changes only in reflect.
    const updates = offered.includes('update_scratchpad')
      ? actions.filter((action) => action.tool === 'update_scratchpad')
      : [];
    for (const update of updates) {
      const error = run.applyUpdate(update.args);
      run.trace.push({
        ...base,
        dispatch: 'update',
        action: { tool: update.tool, args: update.args },
        ...(error ? { error } : {}),
      });
      await run.enforceBudget();
    }
    const work = actions.find((action) => action.tool !== 'update_scratchpad');
    if (!work) {
      run.trace.push({ ...base, dispatch: 'reply' });
      run.publish('reply');
      return { reply: response.text, outcome: 'completed' };
    }
    const observation = run.workTools().includes(work.tool)
      ? await run.runTool(work, iteration)
      : { ok: false, error: `unknown tool "${work.tool}"` };
    const text = observationExcerpt(work.tool, observation);
    observations.push({ tool: work.tool, args: work.args, text });
    run.trace.push({ ...base, dispatch: 'tool', action: { tool: work.tool, args: work.args }, observation: text });
    run.publish(`tool ${work.tool}`);
  }
  return { reply: lastText, outcome: 'max_iterations' };
}

/** Seed 001 phase 2: a separate call, forced to `update_scratchpad`, merged with safe_apply. */
async function reflect(run: CycleRun, message: string, reply: string): Promise<void> {
  const messages = buildReflectMessages(run.state, message, reply);
  const response = await run.callModel({
    system: 'reflect',
    messages,
    tools: ['update_scratchpad'],
    toolChoice: { name: 'update_scratchpad' },
    model: run.input.reflectModel ?? run.input.model,
  });
  const update = actionsOf(response, ['update_scratchpad']).find((action) => action.tool === 'update_scratchpad');
  const error = update ? run.applyUpdate(update.args) : undefined;
  run.trace.push({
    iteration: run.iterations + 1,
    phase: 'reflect',
    request: { promptChars: messages[0]?.content.length ?? 0, tools: ['update_scratchpad'] },
    response: {
      text: response.text.slice(0, 2000),
      toolCalls: update ? [update.tool] : [],
      stopReason: response.stopReason,
    },
    dispatch: 'reflect',
    ...(update ? { action: { tool: update.tool, args: update.args } } : {}),
    ...(error ? { error } : {}),
    usage: response.usage,
  });
  await run.enforceBudget();
  run.publish('reflect');
}

/** One reflective chat turn (seed 001): respond, then reflect unless in single-phase mode. */
export async function runChatTurn(run: CycleRun): Promise<{ reply: string; outcome: CycleOutcome }> {
  const message = run.input.message ?? '';
  const turn = await respond(run, message);
  // Kept on the run so a reflect that fails for good does not also lose the reply the user paid for.
  run.reply = turn.reply;
  if (run.input.twoPhase) await reflect(run, message, turn.reply);
  return turn;
}
