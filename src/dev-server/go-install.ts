import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

/** The Temporal CLI release built from source when no binary can be had otherwise. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/** The oldest Go release that builds {@link TEMPORAL_CLI_MODULE}. */
export const MINIMUM_GO = { major: 1, minor: 25 };

/** The version `go version` reports, or undefined when no Go toolchain runs. */
export async function goVersion(
  env: NodeJS.ProcessEnv,
): Promise<{ major: number; minor: number; text: string } | undefined> {
  try {
    const { stdout } = await promisify(execFile)('go', ['version'], { env, timeout: 30_000 });
    const match = /go(\d+)\.(\d+)/.exec(stdout);
    if (!match) return undefined;
    return { major: Number(match[1]), minor: Number(match[2]), text: `go${match[1]}.${match[2]}` };
  } catch {
    return undefined;
  }
}

/** Whether this Go release is recent enough to build the CLI. */
export function isGoRecentEnough(version: { major: number; minor: number }): boolean {
  return version.major > MINIMUM_GO.major || (version.major === MINIMUM_GO.major && version.minor >= MINIMUM_GO.minor);
}

/** Builds the CLI with `go install` into `binDirectory`, streaming go's output and a heartbeat to `log`. */
export function goInstallTemporalCli(
  binDirectory: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  return goInstall([TEMPORAL_CLI_MODULE], binDirectory, env, log);
}

/** `go install` of `modules` (path@version) into `binDirectory`, streaming go's output and a heartbeat to `log`. */
export async function goInstall(
  modules: string[],
  binDirectory: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  const child = spawn('go', ['install', ...modules], {
    // CGO off: a static binary that needs no C toolchain and runs on any Linux of the same arch.
    env: { ...env, CGO_ENABLED: '0', GOBIN: binDirectory },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      log(line);
    });
  }
  const heartbeat = setInterval(
    () => log(`go install still running (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`go install exited with code ${code}: ${tail.slice(-5).join(' | ')}`);
  } finally {
    clearInterval(heartbeat);
  }
  log(`go install finished in ${Math.round((Date.now() - started) / 1000)} s`);
}
