import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { isPayloadLimitRefusal } from '../../src/clients/payload-limit';
import { SERVER_PAYLOAD_LIMIT_BYTES } from '../../src/core/payload';
import { clusterClient } from './cluster-env';

let client: Client;

beforeAll(async () => {
  client = await clusterClient();
});

afterAll(async () => {
  await client?.connection.close();
});

// The cluster reads its payload limits from the dynamic configuration file scripts/cluster writes.
it('the cluster refuses a 1 MB signal to its sender and takes one within the limit', async () => {
  // No worker polls this queue: only what the server admits is in question.
  const handle = await client.workflow.start('agent', {
    args: [{ agentId: 'payload-limit' }],
    taskQueue: `payload-limit-${randomUUID()}`,
    workflowId: `payload-limit/${randomUUID()}`,
  });
  try {
    const refused = await handle.signal('directive', 'm'.repeat(1024 * 1024)).catch((error: unknown) => error);
    expect(isPayloadLimitRefusal(refused)).toBe(true);
    await handle.signal('directive', 'w'.repeat(SERVER_PAYLOAD_LIMIT_BYTES - 1024));
    const signaled = ((await handle.fetchHistory()).events ?? []).filter(
      (event) => event.workflowExecutionSignaledEventAttributes,
    );
    expect(signaled.length).toBe(1);
  } finally {
    await handle.terminate().catch(() => undefined);
  }
});
