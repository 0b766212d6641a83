import { Client, Connection } from '@temporalio/client';
import { type EncryptionKey, encryptionDataConverter } from '../common/encryption-codec';
import { loadConfig } from '../config';
import type { TemporalConnectionOptions } from '../config/temporal';
import { telemetryClientInterceptors } from '../telemetry';

/** Where and how to connect, as `loadConfig()` reads it from the environment and `temporal.toml`. */
export interface ClientSettings {
  /** Address, TLS, API key and gRPC metadata. */
  temporal: TemporalConnectionOptions;
  TEMPORAL_NAMESPACE: string;
  /** Payload encryption keys, the first encrypting; empty for plain payloads. */
  encryptionKeys: EncryptionKey[];
  /**
   * Carry this client's trace into the workflows (OpenTelemetry context in Temporal headers): by default when the
   * OTEL_* variables turn telemetry on; `true` also for a tracer provider the application registered itself.
   */
  tracing?: boolean;
}

/**
 * Connects to the Temporal frontend the settings name, by default the environment's (`TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, TLS and API key as the Temporal CLI reads them; `SCRATCHPAD_ENCRYPTION_KEY`). With the
 * OTEL_* variables set, its calls carry their trace into the workflows (OpenTelemetry loads only then).
 */
export async function connectClient(settings: ClientSettings = loadConfig()): Promise<Client> {
  const connection = await Connection.connect({ ...settings.temporal, connectTimeout: '5s' });
  // With encryption configured, everything this client writes is ciphertext and everything it reads is decrypted.
  const dataConverter = encryptionDataConverter(settings.encryptionKeys);
  const interceptors = { workflow: telemetryClientInterceptors(settings.tracing) };
  return new Client({ connection, namespace: settings.TEMPORAL_NAMESPACE, dataConverter, interceptors });
}
