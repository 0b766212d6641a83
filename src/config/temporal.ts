import { type ClientConnectConfig, loadClientConnectConfig } from '@temporalio/envconfig';

/** How to reach Temporal: what `Connection.connect` and `NativeConnection.connect` take. */
export type TemporalConnectionOptions = ClientConnectConfig['connectionOptions'] & { address: string };

export interface TemporalSettings {
  address: string;
  namespace: string;
  connection: TemporalConnectionOptions;
}

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

/**
 * Connection settings the way the Temporal CLI and every SDK read them (`@temporalio/envconfig`): the profile
 * `TEMPORAL_PROFILE` (else `default`) of `TEMPORAL_CONFIG_FILE` (else `~/.config/temporalio/temporal.toml`, when
 * present), overridden by `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS*` and
 * `TEMPORAL_GRPC_META_*`. Empty variables count as unset, as everywhere else in this configuration.
 */
export function loadTemporalSettings(env: NodeJS.ProcessEnv): TemporalSettings {
  const set = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
  const { connectionOptions, namespace } = loadClientConnectConfig({ overrideEnvVars: set });
  const address = connectionOptions.address ?? DEFAULT_ADDRESS;
  return {
    address,
    namespace: namespace ?? DEFAULT_NAMESPACE,
    connection: { ...connectionOptions, address },
  };
}

/** `address` with how it is secured, for messages (never the key or certificates). */
export function describeConnection(connection: TemporalConnectionOptions): string {
  const secured = [connection.tls ? 'TLS' : undefined, connection.apiKey ? 'API key' : undefined].filter(Boolean);
  return secured.length > 0 ? `${connection.address} (${secured.join(', ')})` : connection.address;
}
