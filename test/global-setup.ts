import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer } from '../src/dev-server/dev-server';
import { ensureTemporalCli } from '../src/dev-server/provision';
import './helpers/dev-server-handle';
import { bundleForRun } from './helpers/workflow-bundle';

/**
 * Starts one Temporal dev server for the whole run and bundles the workflow code once, while the server starts; hands
 * both to the test workers through the env (workers are forked after global setup, so they inherit it).
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[temporal] ${line}\n`);
  process.stderr.write('\n');
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-test-'));
  if (process.env.TEMPORAL_TEST_ADDRESS) {
    log(`using the server at TEMPORAL_TEST_ADDRESS=${process.env.TEMPORAL_TEST_ADDRESS}`);
    await bundleForRun(directory);
    globalThis.scratchpadTestServer = { directory };
    return;
  }
  const bundled = bundleForRun(directory);
  // Awaited below; until then a failure here must not count as unhandled.
  bundled.catch(() => undefined);
  const cliPath = await ensureTemporalCli({ log });
  // The state need not outlive a crash: a write-ahead log synced only at checkpoints instead of a sync on every commit,
  // which on the shared disk of a full run made each workflow task wait (a scripted cycle took 185-450 ms, now ~100).
  const server = await startDevServer({
    cliPath,
    dbFile: path.join(directory, 'temporal.db'),
    sqlitePragmas: { journal_mode: 'WAL', synchronous: 'NORMAL' },
    ui: true,
    log,
  });
  globalThis.scratchpadTestServer = { server, directory };
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  if (server.uiUrl) process.env.TEMPORAL_TEST_UI_URL = server.uiUrl;
  await bundled;
}
