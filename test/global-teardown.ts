import * as fs from 'node:fs/promises';
import './helpers/dev-server-handle';

/** Stops the dev server global-setup started and removes its state and the workflow bundle. */
export default async function globalTeardown(): Promise<void> {
  const handle = globalThis.scratchpadTestServer;
  if (!handle) return;
  await handle.server?.stop();
  await fs.rm(handle.directory, { recursive: true, force: true });
  globalThis.scratchpadTestServer = undefined;
}
