import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';

/** The address of the dev server test/global-setup.ts started (or TEMPORAL_TEST_ADDRESS given by hand). */
export function testServerAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address)
    throw new Error('TEMPORAL_TEST_ADDRESS is not set: run the tests with jest, whose global setup sets it');
  return address;
}

/** A test environment connected to the shared dev server; call `teardown()` in `afterAll`. */
export function testEnvironment(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createFromExistingServer({ address: testServerAddress() });
}

/** A task queue no other test uses, so workers of different tests never take each other's tasks. */
export function uniqueTaskQueue(name: string): string {
  return `${name}-${randomUUID()}`;
}

/** The first value of `probe` that `accept` takes, polling every `intervalMs`; a probe that throws counts as not yet. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 60_000,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
