/** What one benchmark invocation measures and where. */
export interface BenchOptions {
  iterations: number;
  runs: number;
  /** Use this server instead of starting a dev server. */
  address?: string;
  namespace: string;
}

export const USAGE = `usage: node dist/bench/cycle-overhead.js [--iterations N] [--runs R] [--address [host:port]]
  --iterations N   iterations per cycle (default 20, 1..200)
  --runs R         measured runs per mode; medians are reported (default 5); one warm-up run is not counted
  --address        use the Temporal server at host:port (or TEMPORAL_ADDRESS) instead of starting a dev server`;

function positiveInteger(flag: string, text: string | undefined, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`${flag} takes an integer from 1 to ${max}\n${USAGE}`);
  return value;
}

/** Parses the command line; throws with the usage text on anything it does not understand. */
export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const options: BenchOptions = { iterations: 20, runs: 5, namespace: env.TEMPORAL_NAMESPACE ?? 'default' };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--iterations') options.iterations = positiveInteger(flag, argv[++index], 200);
    else if (flag === '--runs') options.runs = positiveInteger(flag, argv[++index], 1000);
    else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : (env.TEMPORAL_ADDRESS ?? 'localhost:7233');
    } else throw new Error(`unknown argument "${flag}"\n${USAGE}`);
  }
  return options;
}
