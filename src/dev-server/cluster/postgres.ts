import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import {
  type ClusterLayout,
  type ClusterProcess,
  DATABASES,
  DB_PASSWORD,
  DB_USER,
  TEMPORAL_SERVER_VERSION,
} from './layout';
import { spawnLogged, waitReady } from './processes';
import type { Log } from './provision';

const run = promisify(execFile);

/**
 * PostgreSQL refuses to run as root. As root, it runs in a user namespace where it is uid 1000 while the kernel
 * still sees root: the data directory stays under root's cache (which the `postgres` user could not reach) and
 * nothing needs a chown.
 */
function asNonRoot(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['unshare', ['--user', '--map-user=1000', '--map-group=1000', '--', command, ...args]];
}

/** Creates the data directory with the `temporal` superuser (password auth, loopback only) once. */
export async function initPostgres(layout: ClusterLayout, binDir: string, log: Log): Promise<void> {
  if (fs.existsSync(path.join(layout.pgData, 'PG_VERSION'))) return;
  log(`initdb ${layout.pgData}${process.getuid?.() === 0 ? ' (running as root: inside a user namespace)' : ''}`);
  fs.mkdirSync(path.dirname(layout.pgData), { recursive: true });
  const passwordFile = path.join(path.dirname(layout.pgData), 'initdb-password');
  fs.writeFileSync(passwordFile, `${DB_PASSWORD}\n`, { mode: 0o600 });
  try {
    const [command, args] = asNonRoot(path.join(binDir, 'initdb'), [
      '-D',
      layout.pgData,
      '-U',
      DB_USER,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--no-instructions',
    ]);
    await run(command, args, { timeout: 120_000 });
  } catch (error) {
    fs.rmSync(layout.pgData, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr || (error as Error).message}`);
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** Starts PostgreSQL on 127.0.0.1:`port` (no Unix socket) and waits until it accepts connections. */
export async function startPostgres(
  layout: ClusterLayout,
  binDir: string,
  port: number,
  log: Log,
): Promise<ClusterProcess> {
  const postgres = path.join(binDir, 'postgres');
  const [command, args] = asNonRoot(postgres, [
    '-D',
    layout.pgData,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
  ]);
  log(`starting PostgreSQL on 127.0.0.1:${port}`);
  const started = spawnLogged('postgres', command, args, {
    logDir: layout.logDir,
    stopSignal: 'SIGINT',
    program: postgres,
  });
  const isReady = path.join(binDir, 'pg_isready');
  await waitReady(
    started,
    () =>
      run(isReady, ['-q', '-h', '127.0.0.1', '-p', String(port)]).then(
        () => true,
        () => false,
      ),
    60_000,
  );
  return started;
}

/** Both databases and their schemas, by the server's own SQL tool; `update-schema` each start is a no-op when current. */
export async function setupSchemas(layout: ClusterLayout, schemaDir: string, port: number, log: Log): Promise<void> {
  const marker = path.join(path.dirname(layout.pgData), `schema-${TEMPORAL_SERVER_VERSION}`);
  const fresh = !fs.existsSync(marker);
  const common = [
    '--plugin',
    'postgres12',
    '--ep',
    '127.0.0.1',
    '-p',
    String(port),
    '-u',
    DB_USER,
    '--pw',
    DB_PASSWORD,
  ];
  const sql = async (database: string, ...args: string[]) => {
    try {
      await run(layout.sqlToolBin, [...common, '--db', database, ...args], { timeout: 300_000 });
    } catch (error) {
      throw new Error(`temporal-sql-tool ${args[0]} ${database} failed: ${(error as { stderr?: string }).stderr}`);
    }
  };
  for (const [database, folder] of [
    [DATABASES.store, 'temporal'],
    [DATABASES.visibility, 'visibility'],
  ] as const) {
    if (fresh) {
      log(`temporal-sql-tool create-database ${database}, setup-schema -v 0.0`);
      await sql(database, 'create-database');
      await sql(database, 'setup-schema', '-v', '0.0');
    }
    log(`temporal-sql-tool update-schema ${database} from ${path.join(schemaDir, folder, 'versioned')}`);
    await sql(database, 'update-schema', '-d', path.join(schemaDir, folder, 'versioned'));
  }
  fs.writeFileSync(marker, `${new Date().toISOString()}\n`);
}
