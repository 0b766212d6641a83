import * as fs from 'node:fs/promises';
import './helpers/dev-server-handle';

/**
 * Stops the dev server global-setup started and says how it answered; removes its state and the workflow bundle unless
 * it stopped answering.
 */
export default async function globalTeardown(): Promise<void> {
  const handle = globalThis.scratchpadTestServer;
  if (!handle) return;
  let keep = false;
  try {
    if (handle.watch) {
      await handle.watch.stop();
      process.stderr.write(`\n[temporal] ${handle.watch.report()}\n`);
      // Its database and log are what tells why it stopped answering.
      keep = handle.watch.stoppedAnswering();
      if (keep) process.stderr.write(`[temporal] kept ${handle.directory}\n`);
    }
  } finally {
    await handle.server?.stop();
  }
  if (!keep) await fs.rm(handle.directory, { recursive: true, force: true });
  globalThis.scratchpadTestServer = undefined;
}
