import { z } from 'zod';

/** What a tool returned, as the model and the notes see it. Extra fields (metadata) pass through. */
export const ObservationSchema = z.looseObject({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
});
export type Observation = z.infer<typeof ObservationSchema>;

export const ToolCallInputSchema = z.object({
  cycleId: z.string(),
  step: z.number().int().nonnegative(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCallInput = z.infer<typeof ToolCallInputSchema>;

/** Seed 000 cuts a tool result to this many characters in notes. */
export const NOTE_RESULT_CHARS = 300;

/** The text of an observation as it appears after `→` in a `[TOOL]` note. */
export function observationText(observation: Observation): string {
  if (!observation.ok) return `ERROR: ${observation.error ?? 'tool failed'}`;
  const keys = Object.keys(observation).filter((key) => key !== 'ok');
  if (keys.length === 1 && typeof observation.result === 'string') return observation.result;
  const { ok: _ok, ...rest } = observation;
  return JSON.stringify(keys.length === 1 ? observation.result : rest);
}

/** `[TOOL] name(args) → result`, the result cut at {@link NOTE_RESULT_CHARS}. */
export function toolNote(name: string, args: unknown, observation: Observation): string {
  return `[TOOL] ${name}(${JSON.stringify(args)}) → ${observationText(observation).slice(0, NOTE_RESULT_CHARS)}`;
}
