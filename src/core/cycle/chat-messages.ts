import { MAX_HISTORY_TOOL_CALLS, MAX_TOOL_CALL_ID_CHARS, type Message } from './model';
import { headCodePoints } from '../text';
import { observationExcerpt } from '../tools/observation';
import type { Handled } from './plan-calls';
import { directiveLines, scratchpadContent } from './prompts';
import type { Scratchpad } from '../scratchpad/scratchpad';

/** One call of a chat turn's iteration and its result, as the turn shows it back to the model. */
export interface TurnCall {
  /** As the model gave it; a stable one made from the iteration when it gave none (the JSON text protocol). */
  id: string;
  name: string;
  input: unknown;
  /** The observation excerpt, or what was done when the call left none (an update applied in single-phase mode). */
  result: string;
  isError: boolean;
}

/** One iteration of a chat turn that ran tools: the model's text and its calls with their results. */
export interface TurnExchange {
  text: string;
  calls: TurnCall[];
}

/** A directive and the iteration that first showed it. */
export interface ShownDirective {
  text: string;
  iteration: number;
}

function callResult({ step, observation }: Handled): { result: string; isError: boolean } {
  if (observation) return { result: observationExcerpt(step.action.tool, observation), isError: !observation.ok };
  if (step.kind === 'update' && step.error !== undefined) return { result: `ERROR: ${step.error}`, isError: true };
  // Providers want a result for every call, even one whose effect was only on the scratchpad.
  return { result: step.kind === 'done' ? 'done' : 'applied', isError: false };
}

/**
 * An iteration's response and what was done with its calls (one {@link Handled} per call, in order), as history for
 * the turn's later iterations. Ids the model gave none of are `call_<iteration>_<n>`: deterministic, so replay
 * builds the same request.
 */
export function turnExchange(iteration: number, text: string, handled: readonly Handled[]): TurnExchange {
  const used = new Set<string>();
  const calls = handled.slice(0, MAX_HISTORY_TOOL_CALLS).map((entry, index) => {
    const { callId, tool, args } = entry.step.action;
    // A result is matched to its call by id, so ids within one response must differ.
    let id = headCodePoints(callId ?? '', MAX_TOOL_CALL_ID_CHARS);
    if (id === '' || used.has(id)) id = `call_${iteration}_${index + 1}`;
    while (used.has(id)) id = `${id}_`;
    used.add(id);
    return { id, name: headCodePoints(tool, MAX_TOOL_CALL_ID_CHARS), input: args, ...callResult(entry) };
  });
  return { text, calls };
}

/**
 * Respond: exactly the scratchpad and this turn's input with the directives shown at its start, then each iteration
 * that ran tools (the assistant's calls, one `tool` message per call) and the directives that arrived after it; no
 * earlier turns. The scratchpad comes first, its stable sections marked for caching; this turn's input after it.
 */
export function buildRespondMessages(
  state: Scratchpad,
  input: string,
  directives: readonly ShownDirective[] = [],
  exchanges: readonly TurnExchange[] = [],
): Message[] {
  const understanding = scratchpadContent(
    state,
    '<current_understanding>\n',
    '\n</current_understanding>\n\nThe above is your current understanding. Respond to the user naturally.',
  );
  // A directive first shown at iteration i arrived while iteration i - 1 ran: it follows that iteration's results.
  const after = (slot: number) =>
    directives
      .filter((entry) => Math.min(Math.max(entry.iteration - 1, 0), exchanges.length) === slot)
      .map((entry) => entry.text);
  const atStart = after(0);
  const messages: Message[] = [
    { role: 'user', content: understanding },
    { role: 'assistant', content: 'Understood.' },
    { role: 'user', content: atStart.length > 0 ? `${input}\n\n${directiveLines(atStart)}` : input },
  ];
  exchanges.forEach((exchange, index) => {
    if (exchange.calls.length > 0) {
      const toolCalls = exchange.calls.map(({ id, name, input: args }) => ({ id, name, input: args }));
      messages.push({ role: 'assistant', content: exchange.text, toolCalls });
    }
    for (const call of exchange.calls) {
      const result = { role: 'tool' as const, toolCallId: call.id, name: call.name, content: call.result };
      messages.push(call.isError ? { ...result, isError: true } : result);
    }
    const arrived = after(index + 1);
    if (arrived.length > 0) messages.push({ role: 'user', content: directiveLines(arrived) });
  });
  return messages;
}

/**
 * Reflect: the prior understanding (its stable sections marked for caching) and the exchange, for a forced
 * `update_scratchpad` call.
 */
export function buildReflectMessages(state: Scratchpad, input: string, reply: string): Message[] {
  const exchange = `
</prior_understanding>

<exchange>
USER: ${input}
ASSISTANT: ${reply}
</exchange>

Review this exchange. What changed in the assistant's understanding?
Call update_scratchpad with any sections that need updating.
Most turns only need trajectory_now and possibly self_confidence.`;
  return [{ role: 'user', content: scratchpadContent(state, '<prior_understanding>\n', exchange) }];
}
