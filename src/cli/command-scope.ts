import { AsyncLocalStorage } from 'node:async_hooks';

/** What a command opened that must close when it ends: a Temporal client's connection. */
interface Closable {
  close(): Promise<void>;
}

const opened = new AsyncLocalStorage<Set<Closable>>();

/**
 * Runs one command: whatever it registers with {@link closeWhenDone} is closed once it ends, however it ends. A
 * process exits without that, but `main` called twice in one process (a program embedding the CLI, the tests) would
 * otherwise keep a connection per call.
 */
export async function commandScope<T>(run: () => Promise<T>): Promise<T> {
  const scope = new Set<Closable>();
  try {
    return await opened.run(scope, run);
  } finally {
    await Promise.all([...scope].map((closable) => closable.close().catch(() => undefined)));
  }
}

/** Closes `closable` when the running command ends (see {@link commandScope}); returns it. */
export function closeWhenDone<T extends Closable>(closable: T): T {
  opened.getStore()?.add(closable);
  return closable;
}
