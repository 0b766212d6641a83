import { DEFAULT_BUDGET_CHARS } from '../src/core/scratchpad/budget';

/** What one run of the context-size benchmark does and where. */
export interface ContextOptions {
  turns: number;
  /** The agent's scratchpad budget; anything but the default is for development only. */
  budgetChars: number;
  /** Use this server instead of starting a dev server. */
  address?: string;
  namespace: string;
}

export const CONTEXT_USAGE = `usage: node dist/bench/context-size.js [--turns N] [--budget-chars N] [--address [host:port]]
  --turns N          chat turns (default 100, 10..1000)
  --budget-chars N   the agent's scratchpad budget (default ${DEFAULT_BUDGET_CHARS}; other values are for development)
  --address          use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

function integerIn(flag: string, text: string | undefined, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} takes an integer from ${min} to ${max}\n${CONTEXT_USAGE}`);
  }
  return value;
}

/** Parses the command line; throws with the usage text on anything it does not understand. */
export function parseContextOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ContextOptions {
  const options: ContextOptions = {
    turns: 100,
    budgetChars: DEFAULT_BUDGET_CHARS,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--turns') options.turns = integerIn(flag, argv[++index], 10, 1000);
    else if (flag === '--budget-chars') options.budgetChars = integerIn(flag, argv[++index], 1000, 200_000);
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : (env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${CONTEXT_USAGE}`);
  }
  return options;
}
