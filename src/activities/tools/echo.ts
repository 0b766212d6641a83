import type { z } from 'zod';
import type { Observation } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';

/** `echo`: returns the message, prefixed, so a model can check that tools work. */
export async function echo(args: z.infer<ReturnType<typeof TOOL_ARGS.echo>>): Promise<Observation> {
  return { ok: true, result: `ECHO: ${args.message}` };
}
