/** What one run of the tools benchmark measures and where. */
export interface ToolsBenchOptions {
  /** Tool calls per activity-level run. */
  calls: number;
  /** Activity-level runs per tool kind; medians are reported. */
  runs: number;
  /** Tool calls per cycle on Temporal (then `done`). */
  cycleCalls: number;
  /** Cycles per tool kind on Temporal; 0 skips the Temporal part. */
  cycleRuns: number;
  /** Use this server instead of starting a dev server. */
  address?: string;
  namespace: string;
}

export const TOOLS_USAGE = `usage: node dist/bench/tools.js [--calls N] [--runs R] [--cycle-calls K] [--cycle-runs C] [--address [host:port]]
  --calls N         tool calls per activity-level run (default 1000, 1..100000)
  --runs R          activity-level runs per tool kind; medians are reported (default 5); one warm-up run is not counted
  --cycle-calls K   tool calls per cycle on Temporal, then done (default 20, 1..199)
  --cycle-runs C    cycles per tool kind on Temporal (default 5); 0 measures the activity level only
  --address         use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

function integerIn(flag: string, text: string | undefined, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} takes an integer from ${min} to ${max}\n${TOOLS_USAGE}`);
  }
  return value;
}

/** Parses the command line; throws with the usage text on anything it does not understand. */
export function parseToolsOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ToolsBenchOptions {
  const options: ToolsBenchOptions = {
    calls: 1000,
    runs: 5,
    cycleCalls: 20,
    cycleRuns: 5,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--calls') options.calls = integerIn(flag, argv[++index], 1, 100_000);
    else if (flag === '--runs') options.runs = integerIn(flag, argv[++index], 1, 1000);
    else if (flag === '--cycle-calls') options.cycleCalls = integerIn(flag, argv[++index], 1, 199);
    else if (flag === '--cycle-runs') options.cycleRuns = integerIn(flag, argv[++index], 0, 1000);
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : (env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${TOOLS_USAGE}`);
  }
  return options;
}
