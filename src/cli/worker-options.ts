import type { Command, OptionValues } from '@commander-js/extra-typings';
import { type Config, modelAllowProblem } from '../config';
import { CliError, EXIT } from './errors';

/** Declares the options of every command that runs a worker: `up`, `dev`, `worker`. */
export function workerOptions<Args extends unknown[], Options extends OptionValues>(command: Command<Args, Options>) {
  return command
    .option('--model <spec>', 'model spec (overrides SCRATCHPAD_MODEL)')
    .option(
      '--models <list>',
      'more model specs workflows may name, comma-separated: exact, anthropic:*, openai:*@URL, scripted:* ' +
        '(overrides SCRATCHPAD_MODELS)',
    )
    .option(
      '--tools <module>',
      'your tools: a module whose default export is an array of defineTool(...) (overrides SCRATCHPAD_TOOLS)',
    )
    .option(
      '--mcp-config <file>',
      'MCP servers whose tools agents get: JSON in the mcpServers shape (overrides SCRATCHPAD_MCP_CONFIG)',
    );
}

/** The options {@link workerOptions} declares, as they are parsed. */
export type WorkerFlags = ReturnType<ReturnType<typeof workerOptions<[], Record<never, never>>>['opts']>;

/** `--models` as SCRATCHPAD_MODELS reads it: a bad entry is a usage error naming it. */
function modelList(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const problem = entries.map(modelAllowProblem).find((found) => found !== undefined);
  if (problem) throw new CliError(`--models: ${problem}`, EXIT.usage);
  return entries;
}

/** `--models`, `--tools` and `--mcp-config` in place of their variables; tools are checked when the worker starts. */
export function withToolOptions(config: Config, options: WorkerFlags): Config {
  return {
    ...config,
    ...(options.models !== undefined && { SCRATCHPAD_MODELS: modelList(options.models) }),
    ...(options.tools !== undefined && { SCRATCHPAD_TOOLS: options.tools }),
    ...(options.mcpConfig !== undefined && { SCRATCHPAD_MCP_CONFIG: options.mcpConfig }),
  };
}
