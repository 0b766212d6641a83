import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CLUSTER_SCRIPT } from './global-setup';

/** Stops everything the cluster script started and removes its data. */
export default function globalTeardown(): void {
  const directory = process.env.SCRATCHPAD_CLUSTER_DIR;
  if (!directory) return;
  execFileSync(CLUSTER_SCRIPT, ['stop'], { env: process.env, stdio: 'inherit' });
  fs.rmSync(directory, { recursive: true, force: true });
}
