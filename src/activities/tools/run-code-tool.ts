import { Context } from '@temporalio/activity';
import type { Observation } from '../../core/tools/observation';
import { errorMessage } from '../../common/error-message';
import type { CodeTool, ToolContext } from './define-tool';

/** A code tool's call: parsed arguments, its own timeout as an observation, its result as JSON. */
export async function runCodeTool(
  tool: CodeTool,
  args: Record<string, unknown>,
  context: Omit<ToolContext, 'signal' | 'log' | 'heartbeat'> & { signal?: AbortSignal },
): Promise<Observation> {
  const parsed = tool.parse(args);
  if (!parsed.ok) return { ok: false, error: `invalid arguments for ${tool.name}:\n${parsed.error}` };
  const { timeoutMs } = tool.policy;
  const signals = [context.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  const signal = AbortSignal.any(signals);
  const full: ToolContext = { ...context, signal, heartbeat, log: logger() };
  // A tool that ignores its signal must not hold the call: the race ends it when the signal fires.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([Promise.resolve().then(() => tool.run(parsed.args, full)), aborted]);
    return observationOfResult(tool.name, result);
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason;
    if (signal.aborted) return { ok: false, error: `${tool.name} timed out after ${timeoutMs} ms` };
    return { ok: false, error: errorMessage(error) };
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** A tool's return value as an observation: a string or JSON; anything else is the tool's error. */
function observationOfResult(name: string, result: unknown): Observation {
  if (result === undefined) return { ok: true };
  if (typeof result === 'string') return { ok: true, result };
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    return { ok: false, error: `${name} returned a value that is not JSON: ${errorMessage(error)}` };
  }
  if (json === undefined) return { ok: false, error: `${name} returned a value that is not JSON (${typeof result})` };
  return { ok: true, result: JSON.parse(json) as unknown };
}

export function heartbeat(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Outside an activity (a unit test) there is nothing to tell.
  }
}

export function logger(): ToolContext['log'] {
  try {
    const { log } = Context.current();
    return {
      info: (message) => log.info(message),
      warn: (message) => log.warn(message),
      error: (message) => log.error(message),
    };
  } catch {
    return {
      info: (message) => console.info(message),
      warn: (message) => console.warn(message),
      error: (message) => console.error(message),
    };
  }
}
