import { Client, Connection } from '@temporalio/client';
import { encryptionDataConverter } from '../common/encryption-codec';
import type { Config } from '../config';

/** Connects to the configured Temporal frontend (address, TLS, API key: see `config/temporal.ts`). */
export async function connectClient(
  config: Pick<Config, 'temporal' | 'TEMPORAL_NAMESPACE' | 'encryptionKeys'>,
): Promise<Client> {
  const connection = await Connection.connect({ ...config.temporal, connectTimeout: '5s' });
  // With encryption configured, everything this client writes is ciphertext and everything it reads is decrypted.
  const dataConverter = encryptionDataConverter(config.encryptionKeys);
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
}
