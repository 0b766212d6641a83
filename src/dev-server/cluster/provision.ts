import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, goVersion } from '../go-install';
import {
  type ClusterLayout,
  SERVER_MODULES,
  TEMPORAL_SERVER_MODULE,
  TEMPORAL_SERVER_VERSION,
  UI_SERVER_MODULE,
} from './layout';

const run = promisify(execFile);
export type Log = (line: string) => void;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function requireGo(env: NodeJS.ProcessEnv, what: string): Promise<void> {
  if (!(await goVersion(env))) throw new Error(`${what} needs a Go toolchain (go install); install Go >= 1.25`);
}

/** The Temporal server, its SQL tool and the UI server, built with `go install` into the cache when absent. */
export async function ensureServerBinaries(layout: ClusterLayout, log: Log, env = process.env): Promise<void> {
  const wanted: [string[], string, string[]][] = [
    [[layout.serverBin, layout.sqlToolBin], path.dirname(layout.serverBin), SERVER_MODULES],
    [[layout.uiBin], path.dirname(layout.uiBin), [UI_SERVER_MODULE]],
  ];
  for (const [binaries, directory, modules] of wanted) {
    if (binaries.every(isExecutable)) {
      log(`using ${binaries.join(', ')}`);
      continue;
    }
    await requireGo(env, modules.join(' '));
    log(`go install ${modules.join(' ')} into ${directory} (several minutes the first time)`);
    fs.mkdirSync(directory, { recursive: true });
    await goInstall(modules, directory, env, log);
  }
}

/** `schema/postgresql/v12` of the server module: in Go's module cache, downloaded when absent. */
export async function ensureSchemaDir(log: Log, env = process.env): Promise<string> {
  const module = `${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`;
  let modCache = env.GOMODCACHE;
  if (!modCache) {
    await requireGo(env, 'the PostgreSQL schema files');
    modCache = (await run('go', ['env', 'GOMODCACHE'], { env })).stdout.trim();
  }
  const schema = path.join(modCache, module, 'schema', 'postgresql', 'v12');
  if (!fs.existsSync(schema)) {
    log(`go mod download ${module} (for its schema files)`);
    await run('go', ['mod', 'download', module], { env, timeout: 600_000 });
  }
  log(`schema files in ${schema}`);
  return schema;
}

async function aptInstall(packages: string[], log: Log): Promise<void> {
  const root = process.getuid?.() === 0;
  log(`installing ${packages.join(' ')} with apt-get${root ? '' : ' (sudo)'}`);
  const options = { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 900_000 };
  const command = ([file, ...args]: string[]) =>
    root ? run(file!, args, options) : run('sudo', ['-n', file!, ...args], options);
  try {
    await command(['apt-get', 'update', '-qq']);
    await command(['apt-get', 'install', '-y', '-qq', ...packages]);
  } catch (error) {
    throw new Error(
      `could not install ${packages.join(' ')} with apt-get (${(error as Error).message.split('\n')[0]}); ` +
        'install them with your package manager and rerun',
    );
  }
}

function postgresBinDirs(): string[] {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return [];
  return fs
    .readdirSync(base)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(base, version, 'bin'))
    .filter((directory) => isExecutable(path.join(directory, 'postgres')));
}

/** The newest PostgreSQL's bin directory (`POSTGRES_BIN_DIR`, else Debian's), installing `postgresql` when absent. */
export async function ensurePostgres(log: Log, env = process.env): Promise<string> {
  if (env.POSTGRES_BIN_DIR) return env.POSTGRES_BIN_DIR;
  if (postgresBinDirs().length === 0) await aptInstall(['postgresql'], log);
  const found = postgresBinDirs()[0];
  if (!found) throw new Error('PostgreSQL is not installed: no /usr/lib/postgresql/<version>/bin/postgres');
  log(`using PostgreSQL in ${found}`);
  return found;
}

async function onPath(command: string): Promise<boolean> {
  return run('sh', ['-c', `command -v ${command}`]).then(
    () => true,
    () => false,
  );
}

/** `redis-server` (and `openssl` for `--tls`), installed with apt-get when absent. */
export async function ensureTools(log: Log, tls: boolean): Promise<void> {
  const missing: string[] = [];
  if (!(await onPath('redis-server'))) missing.push('redis-server');
  if (tls && !(await onPath('openssl'))) missing.push('openssl');
  if (missing.length > 0) await aptInstall(missing, log);
}
