import { z } from 'zod';
import { getterOf } from '../shareable';
import type { ModelResponse } from './model';
import {
  DEFAULT_OUTPUT_CAPS,
  MAX_OUTPUT_TOKENS,
  MIN_OUTPUT_TOKENS,
  type OutputCaps,
  type OutputPhase,
} from './output-caps';

const outputTokens = z.number().int().min(MIN_OUTPUT_TOKENS).max(MAX_OUTPUT_TOKENS);

/** An agent's `maxOutputTokens` setting: output caps by phase, each optional. */
export const OutputCapsSchema = getterOf(
  z.strictObject({ respond: outputTokens.optional(), reflect: outputTokens.optional(), task: outputTokens.optional() }),
);

/** The output cap of `phase` for a cycle: its setting, else the default. */
export function outputCap(input: { maxOutputTokens?: OutputCaps }, phase: OutputPhase): number {
  return input.maxOutputTokens?.[phase] ?? DEFAULT_OUTPUT_CAPS[phase];
}

/** Whether a reply stopped at its output cap (chat completions' `length`, Anthropic's `max_tokens`). */
export function isCut(response: Pick<ModelResponse, 'stopReason'>): boolean {
  return response.stopReason === 'length' || response.stopReason === 'max_tokens';
}
