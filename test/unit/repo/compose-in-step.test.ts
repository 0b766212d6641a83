import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { TEMPORAL_SERVER_VERSION, UI_SERVER_VERSION } from '../../../src/dev-server/cluster/layout';
import { DYNAMIC_CONFIG } from '../../../src/dev-server/cluster/server-config';

const root = path.resolve(__dirname, '..', '..', '..');
interface Service {
  image?: string;
  depends_on?: Record<string, { condition: string }> | string[];
  environment?: Record<string, string>;
  command?: string[];
}
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const dependencies = (name: string) => {
  const depends = service(name).depends_on ?? [];
  return Array.isArray(depends) ? depends : Object.keys(depends);
};

describe('docker-compose.yml is in step with scripts/cluster', () => {
  it('runs the versions the script builds', () => {
    const version = TEMPORAL_SERVER_VERSION.slice(1);
    expect(service('temporal').image).toBe(`temporalio/server:${version}`);
    for (const name of ['temporal-schema', 'temporal-namespace']) {
      expect(service(name).image).toMatch(new RegExp(`^temporalio/admin-tools:${version.replace(/\./g, '\\.')}-`));
    }
    expect(service('temporal-ui').image).toBe(`temporalio/ui:${UI_SERVER_VERSION.slice(1)}`);
    // The script installs Debian bookworm's postgresql package (15); the Dockerfile's base is bookworm.
    expect(service('postgresql').image).toBe('postgres:15');
    expect(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:20-bookworm-slim/m);
  });

  it('starts them in the script order: PostgreSQL, schemas, Temporal, namespace, Redis and the UI, setup, workers', () => {
    expect(dependencies('temporal-schema')).toEqual(['postgresql']);
    expect(dependencies('temporal')).toEqual(['temporal-schema']);
    expect(dependencies('temporal-namespace')).toEqual(['temporal']);
    expect(dependencies('temporal-ui')).toEqual(['temporal-namespace']);
    expect(dependencies('setup')).toEqual(['temporal-namespace']);
    expect(dependencies('worker').sort()).toEqual(['redis', 'setup']);
    expect(service('setup').command).toEqual(['setup']);
    expect(service('worker').command).toEqual(['worker']);
  });

  it('gives setup and workers the variables the script gives them', () => {
    for (const name of ['setup', 'worker']) {
      expect(Object.keys(service(name).environment ?? {})).toEqual(
        expect.arrayContaining([
          'TEMPORAL_ADDRESS',
          'TEMPORAL_NAMESPACE',
          'TEMPORAL_API_KEY',
          'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
        ]),
      );
    }
    expect(service('worker').environment?.SCRATCHPAD_OBSERVATIONS).toMatch(/^redis:\/\//);
    expect(service('redis').command).toEqual(['redis-server', '--appendonly', 'yes']);
    expect(service('temporal').environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_USER: 'temporal',
      POSTGRES_PWD: 'temporal',
    });
  });

  it('sets up the schemas with the SQL tool commands the script runs, and the same dynamic configuration', () => {
    const schema = fs.readFileSync(path.join(root, 'deploy/compose/schema.sh'), 'utf8');
    const script = fs.readFileSync(path.join(root, 'src/dev-server/cluster/postgres.ts'), 'utf8');
    for (const command of ["'create-database'", "'setup-schema', '-v', '0.0'", "'update-schema', '-d'"]) {
      expect(script).toContain(command);
      expect(schema).toContain(command.replace(/'|,/g, ''));
    }
    expect(schema).toContain('--plugin postgres12');
    const dynamic = parse(fs.readFileSync(path.join(root, 'deploy/compose/dynamicconfig.yaml'), 'utf8'));
    expect(dynamic).toEqual(DYNAMIC_CONFIG);
    const mounted = (service('temporal') as { volumes?: string[] }).volumes ?? [];
    expect(mounted.join('\n')).toContain('./deploy/compose/dynamicconfig.yaml:/etc/temporal/config/dynamicconfig/');
  });
});
