import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../src/dev-server/free-port';

export const CLUSTER_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'cluster');

/**
 * Starts a throwaway cluster with `scripts/cluster` (TLS on, so every connection goes through envconfig with the
 * CA), its state in a temporary directory; workers are forked after this, so they inherit the variables.
 */
export default async function globalSetup(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-cluster-test-'));
  process.env.SCRATCHPAD_CLUSTER_DIR = directory;
  process.env.SCRATCHPAD_CLUSTER_STATE = path.join(directory, 'cluster.json');
  // The tests' loopback model: its port is chosen now, so the workers can allow its models from their start.
  const modelPort = await freePort();
  process.env.SCRATCHPAD_TEST_MODEL_PORT = String(modelPort);
  process.env.SCRATCHPAD_MODELS = `openai:*@http://127.0.0.1:${modelPort}/v1#text`;
  process.stderr.write(`\n[cluster] starting a test cluster in ${directory}\n`);
  const started = Date.now();
  const child = execFile(CLUSTER_SCRIPT, ['start', '--tls', '--workers', '2'], { env: process.env });
  child.stderr?.pipe(process.stderr);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`scripts/cluster start exited with ${code}`);
  process.stderr.write(`[cluster] started in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
