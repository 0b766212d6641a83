import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { registerSearchAttributes } from '../src/clients/register-search-attributes';
import { startDevServer } from '../src/dev-server/dev-server';
import { ensureTemporalCli } from '../src/dev-server/provision';
import type { BenchOptions } from './bench-options';
import { progress } from './measure';
import type { TemporalContext } from './temporal-runs';

/** The Temporal server the benchmark talks to. */
export interface TemporalTarget {
  address: string;
  namespace: string;
  /** How the report names the server. */
  description: string;
  /** Whether the benchmark started it (and so registered the search attributes at start). */
  started: boolean;
  stop(): Promise<void>;
}

/** Connects to `--address`, or starts a dev server on free ports with state in a fresh SQLite file. */
export async function openTemporalTarget(options: BenchOptions): Promise<TemporalTarget> {
  const { namespace } = options;
  if (options.address) {
    const stop = async () => undefined;
    return {
      address: options.address,
      namespace,
      description: `existing server ${options.address}`,
      started: false,
      stop,
    };
  }
  const log = (line: string) => progress(`temporal: ${line}`);
  const cliPath = await ensureTemporalCli({ log });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-temporal-'));
  const dbFile = path.join(directory, 'temporal.db');
  const server = await startDevServer({ cliPath, dbFile, ui: false, namespace, log });
  return {
    address: server.address,
    namespace,
    description: `dev server ${server.address} (SQLite ${dbFile})`,
    started: true,
    async stop() {
      await server.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Something a benchmark closes when it ends, in reverse order. */
export type Cleanup = () => Promise<void> | void;

/** The bundler's logger: warnings and errors as progress lines, the rest dropped. */
export const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => progress(`bundler: ${message}`),
  error: (message: string) => progress(`bundler: ${message}`),
};

/** A worker connection and a client to the target, closed by `cleanups`. */
export async function connectTarget(target: TemporalTarget, cleanups: Cleanup[]): Promise<TemporalContext> {
  const { address, namespace } = target;
  const connection = await NativeConnection.connect({ address });
  cleanups.push(() => connection.close());
  const clientConnection = await Connection.connect({ address });
  cleanups.push(() => clientConnection.close());
  // A dev server we started registers them at start; an existing one may not have them yet.
  if (!target.started) await registerSearchAttributes(clientConnection, namespace);
  return { client: new Client({ connection: clientConnection, namespace }), connection, namespace };
}

/**
 * A benchmark's entry: runs `run` with the worker's INFO chatter off (it would interleave with the report), closes
 * what it opened in reverse order whatever happens, and makes a failure or a `false` verdict the exit status.
 */
export function runBenchmark(
  run: (cleanups: Cleanup[]) => Promise<boolean | void>,
  quiet: () => () => void = () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    return () => undefined;
  },
): void {
  const main = async () => {
    const afterCleanup = quiet();
    const cleanups: Cleanup[] = [];
    try {
      if ((await run(cleanups)) === false) process.exitCode = 1;
    } finally {
      progress('tearing down');
      for (const cleanup of cleanups.reverse()) await cleanup();
      afterCleanup();
    }
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
