import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** The address of the dev server test/global-setup.ts started (or TEMPORAL_TEST_ADDRESS given by hand). */
export function testServerAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address)
    throw new Error('TEMPORAL_TEST_ADDRESS is not set: run the tests with jest, whose global setup sets it');
  return address;
}

/** A test environment connected to the shared dev server; call `teardown()` in `afterAll`. */
export async function testEnvironment(): Promise<TestWorkflowEnvironment> {
  // Loaded here, not on import: tests that only wait or need ids skip the SDK's native bridge.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  return TestWorkflowEnvironment.createFromExistingServer({ address: testServerAddress() });
}

/** A task queue no other test uses, so workers of different tests never take each other's tasks. */
export function uniqueTaskQueue(name: string): string {
  return `${name}-${randomUUID()}`;
}

let issued = 0;
/**
 * An id no other test of this run uses (agent ids, workflow ids, file names): the process id keeps parallel jest
 * workers apart, the clock keeps reruns against one server apart, the counter keeps ids of one file apart.
 */
export function uniqueId(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now()}-${issued++}`;
}

/** How long {@link waitFor} waits, how often it asks, and what to call the condition when it gives up. */
export interface WaitOptions {
  /** 30 s unless given: below jest's test timeout, so the reason a test failed is this error, not jest's. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Names the condition in the timeout error; the source text of `accept` (or of `probe`) unless given. */
  what?: string;
}

/**
 * The first value of `probe` that `accept` takes (any truthy value when no `accept` is given), asking every
 * `intervalMs`. A probe that throws counts as not yet: servers and processes come up while a test waits. On timeout
 * it throws, naming what it waited for, the last value and the last error.
 */
export function waitFor<T>(probe: () => T | Promise<T>, options?: WaitOptions | number): Promise<T>;
export function waitFor<T>(
  probe: () => T | Promise<T>,
  accept: (value: T) => boolean,
  options?: WaitOptions | number,
): Promise<T>;
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  acceptOrOptions?: ((value: T) => boolean) | WaitOptions | number,
  maybeOptions?: WaitOptions | number,
): Promise<T> {
  const accept = typeof acceptOrOptions === 'function' ? acceptOrOptions : (value: T) => Boolean(value);
  const given = typeof acceptOrOptions === 'function' ? maybeOptions : acceptOrOptions;
  const options = typeof given === 'number' ? { timeoutMs: given } : (given ?? {});
  const { timeoutMs = 30_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  let value: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      value = await probe();
      failure = undefined;
      if (accept(value)) return value;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) {
      const what = options.what ?? String(typeof acceptOrOptions === 'function' ? acceptOrOptions : probe);
      const last = failure === undefined ? `last value ${shown(value)}` : `last error ${String(failure)}`;
      throw new Error(`waited ${timeoutMs} ms for ${what}; ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function shown(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return String(value);
  }
}
