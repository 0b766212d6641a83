import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer } from '../src/dev-server/dev-server';
import { ensureTemporalCli } from '../src/dev-server/provision';
import './helpers/dev-server-handle';

/** Starts one Temporal dev server for the whole run and hands its address to the test workers through the env. */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[temporal] ${line}\n`);
  process.stderr.write('\n');
  if (process.env.TEMPORAL_TEST_ADDRESS) {
    log(`using the server at TEMPORAL_TEST_ADDRESS=${process.env.TEMPORAL_TEST_ADDRESS}`);
    return;
  }
  const cliPath = await ensureTemporalCli({ log });
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-test-'));
  const server = await startDevServer({ cliPath, dbFile: path.join(directory, 'temporal.db'), ui: true, log });
  // Workers are forked after global setup, so they inherit these.
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  if (server.uiUrl) process.env.TEMPORAL_TEST_UI_URL = server.uiUrl;
  globalThis.scratchpadTestServer = { server, directory };
}
