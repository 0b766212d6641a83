import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { type ClusterLayout, type ClusterPorts, DATABASES, DB_PASSWORD, DB_USER } from './layout';
import type { TlsFiles } from './tls';
import { PAYLOAD_LIMIT_SETTINGS, TIMER_SETTINGS } from '../payload-limits';

/** The environment name the generated files carry: `<configDir>/temporal/cluster.yaml`, `.../ui/cluster.yaml`. */
export const CONFIG_ENV = 'cluster';

function datastore(database: string, port: number, maxConns: number) {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `127.0.0.1:${port}`,
      connectProtocol: 'tcp',
      user: DB_USER,
      password: DB_PASSWORD,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

function service(grpcPort: number, membershipPort: number, httpPort?: number) {
  return { rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...(httpPort ? { httpPort } : {}) } };
}

/** The server's configuration: PostgreSQL for both stores (SQL visibility), all services on loopback. */
export function temporalServerConfig(layout: ClusterLayout, ports: ClusterPorts, tls?: TlsFiles) {
  const dynamicConfig = path.join(layout.configDir, 'dynamicconfig.yaml');
  const frontendTls = tls && {
    frontend: {
      server: { certFile: tls.cert, keyFile: tls.key, requireClientAuth: false },
      // The server's own services (history, the system worker) reach the frontend through TLS as well.
      client: { serverName: 'localhost', rootCaFiles: [tls.ca] },
    },
    systemWorker: { client: { serverName: 'localhost', rootCaFiles: [tls.ca] } },
  };
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: 4,
      datastores: {
        default: datastore(DATABASES.store, ports.postgres, 20),
        visibility: datastore(DATABASES.visibility, ports.postgres, 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      ...(frontendTls ? { tls: frontendTls } : {}),
    },
    services: {
      frontend: service(ports.frontend, ports.membership.frontend, ports.frontendHttp),
      history: service(ports.history, ports.membership.history),
      matching: service(ports.matching, ports.membership.matching),
      worker: service(ports.worker, ports.membership.worker),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `localhost:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfig, pollInterval: '10s' },
  };
}

/**
 * Search attributes are usable the moment `setup` has added them; payloads are held to the dev server's limits. Worker
 * Deployments (versioned workers, `scratchpad deploy`) are on by default in server 1.29: said here so that a changed
 * default cannot turn them off under workers that use them.
 */
export const DYNAMIC_CONFIG = {
  'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true, constraints: {} }],
  'system.enableDeploymentVersions': [{ value: true, constraints: {} }],
  ...Object.fromEntries(
    Object.entries({ ...PAYLOAD_LIMIT_SETTINGS, ...TIMER_SETTINGS }).map(([key, value]) => [
      key,
      [{ value, constraints: {} }],
    ]),
  ),
};

/** The Web UI server's configuration. */
export function uiServerConfig(ports: ClusterPorts, tls?: TlsFiles) {
  return {
    temporalGrpcAddress: `localhost:${ports.frontend}`,
    host: '127.0.0.1',
    port: ports.ui,
    enableUi: true,
    defaultNamespace: 'default',
    cors: { allowOrigins: [`http://localhost:${ports.ui}`, `http://127.0.0.1:${ports.ui}`] },
    refreshInterval: '1m',
    ...(tls ? { tls: { caFile: tls.ca, serverName: 'localhost', enableHostVerification: true } } : {}),
  };
}

/** Writes the three files; returns the `--root`/`--config` directories for each server. */
export function writeConfigs(layout: ClusterLayout, ports: ClusterPorts, tls?: TlsFiles) {
  const temporalDir = path.join(layout.configDir, 'temporal');
  const uiDir = path.join(layout.configDir, 'ui');
  fs.mkdirSync(temporalDir, { recursive: true });
  fs.mkdirSync(uiDir, { recursive: true });
  fs.writeFileSync(path.join(temporalDir, `${CONFIG_ENV}.yaml`), stringify(temporalServerConfig(layout, ports, tls)));
  fs.writeFileSync(path.join(layout.configDir, 'dynamicconfig.yaml'), stringify(DYNAMIC_CONFIG));
  fs.writeFileSync(path.join(uiDir, `${CONFIG_ENV}.yaml`), stringify(uiServerConfig(ports, tls)));
  return { temporalDir, uiDir };
}
