import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DB_PASSWORD, DB_USER, clusterLayout } from '../../src/dev-server/cluster/layout';
import { ensureSchemaDir } from '../../src/dev-server/cluster/provision';
import { ensureTemporalCli } from '../../src/dev-server/provision';
import { clusterClient, clusterState } from './cluster-env';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');

/**
 * The compose file's one-shot services run deploy/compose/*.sh in temporalio/admin-tools. No container engine runs
 * here, so the scripts run against the test cluster with the same two programs that image carries on PATH.
 */
describe('docker-compose one-shot scripts', () => {
  let bin: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-bin-'));
    fs.symlinkSync(clusterLayout().sqlToolBin, path.join(bin, 'temporal-sql-tool'));
    fs.symlinkSync(await ensureTemporalCli(), path.join(bin, 'temporal'));
    const schemaDir = await ensureSchemaDir(() => undefined);
    const state = clusterState();
    env = {
      ...process.env,
      ...state.clientEnv,
      PATH: `${bin}:${process.env.PATH}`,
      TEMPORAL_SCHEMA_DIR: schemaDir,
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(state.ports.postgres),
      POSTGRES_USER: DB_USER,
      POSTGRES_PWD: DB_PASSWORD,
    };
  });

  afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

  it('schema.sh creates both databases at the schema versions the cluster has, and can run again', async () => {
    const names = { DBNAME: `compose_${process.pid}`, VISIBILITY_DBNAME: `compose_vis_${process.pid}` };
    const first = await run('sh', [path.join(root, 'deploy/compose/schema.sh')], { env: { ...env, ...names } });
    expect(first.stdout).toContain(`update-schema ${names.DBNAME} from`);
    expect(first.stdout).toContain(`update-schema ${names.VISIBILITY_DBNAME} from`);
    // A restarted one-shot container runs it again: it must succeed and change nothing.
    await run('sh', [path.join(root, 'deploy/compose/schema.sh')], { env: { ...env, ...names } });
    // The versions the server's own databases were brought to by scripts/cluster.
    const version = async (db: string) =>
      (
        await run(
          'psql',
          [
            '-h',
            '127.0.0.1',
            '-p',
            env.DB_PORT!,
            '-U',
            DB_USER,
            '-d',
            db,
            '-tAc',
            'select curr_version from schema_version',
          ],
          { env: { ...env, PGPASSWORD: DB_PASSWORD } },
        )
      ).stdout.trim();
    expect(await version(names.DBNAME)).toBe(await version('temporal'));
    expect(await version(names.VISIBILITY_DBNAME)).toBe(await version('temporal_visibility'));
  }, 180_000);

  it('namespace.sh registers the namespace once the frontend answers, and a rerun leaves it', async () => {
    const namespace = `compose-${process.pid}`;
    const script = path.join(root, 'deploy/compose/namespace.sh');
    await run('sh', [script], { env: { ...env, TEMPORAL_NAMESPACE: namespace } });
    const client = await clusterClient();
    try {
      const described = await client.workflowService.describeNamespace({ namespace });
      expect(described.namespaceInfo?.name).toBe(namespace);
      expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(86_400);
    } finally {
      await client.connection.close();
    }
    const again = await run('sh', [script], { env: { ...env, TEMPORAL_NAMESPACE: namespace } });
    expect(again.stdout).toContain(`namespace ${namespace} exists`);
  }, 120_000);
});
