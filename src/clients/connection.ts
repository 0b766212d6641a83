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

function isComplete(settings: Partial<ClientSettings>): settings is ClientSettings {
  return (
    settings.temporal !== undefined &&
    settings.TEMPORAL_NAMESPACE !== undefined &&
    settings.encryptionKeys !== undefined
  );
}

/**
 * Connects to the Temporal frontend the settings name; what they leave out comes from the environment
 * (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, TLS and API key as the Temporal CLI reads them;
 * `SCRATCHPAD_ENCRYPTION_KEY`). With the OTEL_* variables set, or `{ tracing: true }`, its calls carry their trace
 * into the workflows (OpenTelemetry loads only then).
 */
export async function connectClient(given: Partial<ClientSettings> = {}): Promise<Client> {
  const settings = isComplete(given) ? given : { ...loadConfig(), ...given };
  const connection = await Connection.connect({ ...settings.temporal, connectTimeout: '5s' });
  // With encryption configured, everything this client writes is ciphertext and everything it reads is decrypted.
  const dataConverter = encryptionDataConverter(settings.encryptionKeys);
  const interceptors = { workflow: telemetryClientInterceptors(settings.tracing) };
  return new Client({ connection, namespace: settings.TEMPORAL_NAMESPACE, dataConverter, interceptors });
}
