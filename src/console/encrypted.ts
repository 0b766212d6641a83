import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { ENCRYPTED_ENCODING } from '../common/encryption-codec';

/** A page this console cannot show: the workflow's payloads are encrypted with a key it lacks. */
export class Locked extends Error {}

export const LOCKED_MESSAGE =
  'encrypted with a key this console does not have: start it with the encryption keys the workers use (SCRATCHPAD_ENCRYPTION_KEYS)';

/**
 * Refuses, saying why, when the workflow's memo is ciphertext this client cannot decrypt; a page built from it would
 * otherwise show a new agent's empty memory as if it were this one's.
 */
export async function requireReadable(client: Client, workflowId: string, what: string): Promise<void> {
  const described = await client.workflowService
    .describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } })
    .catch(() => undefined);
  const fields = Object.values(described?.workflowExecutionInfo?.memo?.fields ?? {});
  const encrypted = fields.filter(
    (payload) => Buffer.from(payload.metadata?.encoding ?? []).toString() === ENCRYPTED_ENCODING,
  );
  if (encrypted.length === 0) return;
  try {
    await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, encrypted);
  } catch {
    throw new Locked(`${what} is ${LOCKED_MESSAGE}`);
  }
}
