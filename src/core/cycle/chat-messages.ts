import type { Message } from './model';
import { observationExcerpt } from '../tools/observation';
import type { Handled } from './plan-calls';
import { directiveLines } from './prompts';
import { renderMarkdown } from '../scratchpad/render';
import type { Scratchpad } from '../scratchpad/scratchpad';

/** A tool result gathered during the current chat turn, shown back to the model within that turn only. */
export interface TurnObservation {
  tool: string;
  args: unknown;
  text: string;
}

/** The observations of a response's calls, as this turn shows them back to the model. */
export function turnObservations(handled: readonly Handled[]): TurnObservation[] {
  return handled.flatMap(({ step, observation }) =>
    observation
      ? [{ tool: step.action.tool, args: step.action.args, text: observationExcerpt(step.action.tool, observation) }]
      : [],
  );
}

/**
 * Respond: exactly the scratchpad and this turn's input (plus this turn's tool results
 * and directives); no earlier turns.
 */
export function buildRespondMessages(
  state: Scratchpad,
  input: string,
  observations: readonly TurnObservation[] = [],
  directives: readonly string[] = [],
): Message[] {
  const understanding = `<current_understanding>\n${renderMarkdown(state).trimEnd()}\n</current_understanding>\n\nThe above is your current understanding. Respond to the user naturally.`;
  const parts = [input];
  if (directives.length > 0) parts.push('', directiveLines(directives));
  if (observations.length > 0) {
    const results = observations.map((entry) => `- ${entry.tool}(${JSON.stringify(entry.args)}) → ${entry.text}`);
    parts.push('', '<tool_results_this_turn>', ...results, '</tool_results_this_turn>');
  }
  return [
    { role: 'user', content: understanding },
    { role: 'assistant', content: 'Understood.' },
    { role: 'user', content: parts.join('\n') },
  ];
}

/** Reflect: the prior understanding and the exchange, for a forced `update_scratchpad` call. */
export function buildReflectMessages(state: Scratchpad, input: string, reply: string): Message[] {
  const content = `<prior_understanding>
${renderMarkdown(state).trimEnd()}
</prior_understanding>

<exchange>
USER: ${input}
ASSISTANT: ${reply}
</exchange>

Review this exchange. What changed in the assistant's understanding?
Call update_scratchpad with any sections that need updating.
Most turns only need trajectory_now and possibly self_confidence.`;
  return [{ role: 'user', content }];
}
