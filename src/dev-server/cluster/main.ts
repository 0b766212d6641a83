import { clusterStatus, startCluster, stopCluster } from './cluster';

const USAGE = `usage: scripts/cluster start [--workers N] [--tls] [--frontend-port P] [--ui-port P] [--model SPEC]
       scripts/cluster stop
       scripts/cluster status [--json]

Runs the production shape on this machine: PostgreSQL, the Temporal server (SQL visibility), redis-server,
the Web UI server, \`scratchpad setup\` and N \`scratchpad worker\` processes; everything under
\${XDG_CACHE_HOME:-~/.cache}/durable-scratchpad/cluster (or SCRATCHPAD_CLUSTER_DIR).`;

function intOption(value: string | undefined, flag: string): number {
  const parsed = Number(value);
  if (!value || !Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new Error(`${flag} needs a number`);
  return parsed;
}

async function start(argv: string[]): Promise<void> {
  const options: Parameters<typeof startCluster>[0] = {};
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const value = () => argv[++index];
    if (flag === '--workers') options.workers = intOption(value(), flag);
    else if (flag === '--tls') options.tls = true;
    else if (flag === '--frontend-port') options.frontendPort = intOption(value(), flag);
    else if (flag === '--ui-port') options.uiPort = intOption(value(), flag);
    else if (flag === '--model') options.model = value();
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  const state = await startCluster(options);
  process.stdout.write(`${JSON.stringify(state.clientEnv)}\n`);
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'start') await start(rest);
    else if (command === 'stop') {
      if (!(await stopCluster())) process.stderr.write('[cluster] nothing running\n');
    } else if (command === 'status') {
      const { state, lines } = clusterStatus();
      process.stdout.write(rest.includes('--json') ? `${JSON.stringify(state ?? null)}\n` : `${lines.join('\n')}\n`);
    } else {
      process.stderr.write(`${USAGE}\n`);
      return command === undefined || command === '--help' ? 0 : 2;
    }
    return 0;
  } catch (error) {
    process.stderr.write(`[cluster] ${(error as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
