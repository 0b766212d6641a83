import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer } from '../src/dev-server/dev-server';
import { ensureTemporalCli } from '../src/dev-server/provision';
import './helpers/dev-server-handle';
import { watchServer } from './helpers/server-watch';
import { RUN_DIRECTORY_VARIABLE } from './helpers/packed-package';
import { bundleForRun } from './helpers/workflow-bundle';

const TEST_SERVER_SETTINGS = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'metrics.breakdownByTaskQueue': false,
  'metrics.breakdownByPartition': false,
};

/**
 * Starts one Temporal dev server for the whole run and bundles the workflow code once, while the server starts; hands
 * both to the test workers through the env (workers are forked after global setup, so they inherit it).
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[temporal] ${line}\n`);
  process.stderr.write('\n');
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-test-'));
  process.env[RUN_DIRECTORY_VARIABLE] = directory;
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
  const logFile = path.join(directory, 'temporal.log');
  const server = await startDevServer({
    cliPath,
    dbFile: path.join(directory, 'temporal.db'),
    logFile,
    sqlitePragmas: { journal_mode: 'WAL', synchronous: 'NORMAL' },
    // A run makes thousands of task queues (one per test, and a sticky one per worker). The server keeps each loaded
    // for minutes after its last poll, writing each partition's state every minute and reporting metrics of each:
    // after the workflow files alone that took 4.4% of a core while no test ran. One partition per task queue and
    // metrics not broken down by task queue cut it to 1.6%, and the server's CPU during those files by 8%.
    dynamicConfig: TEST_SERVER_SETTINGS,
    ui: true,
    log,
  });
  const watch = await watchServer(server.address, 'default', logFile);
  globalThis.scratchpadTestServer = { server, watch, directory };
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  if (server.uiUrl) process.env.TEMPORAL_TEST_UI_URL = server.uiUrl;
  await bundled;
}
