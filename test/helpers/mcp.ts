import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

/** The reference MCP servers from the npm registry, run with this Node. */
export const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
export const MEMORY = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist/index.js',
);

export { freePort } from '../../src/dev-server/free-port';

/** server-everything in Streamable HTTP mode on `port` (it reads PORT), in its own process group. */
export async function startHttpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`HTTP server did not start: ${stderr}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`HTTP server exited: ${stderr}`)));
  });
  child.stderr!.resume();
  return child;
}

/** Ends a process started with `detached: true`, and everything it started. */
export function killGroup(child: ChildProcess | undefined): void {
  try {
    if (child?.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
