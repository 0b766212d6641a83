import * as fs from 'node:fs';
import * as path from 'node:path';

/** The workflow code's entry point, for bundling by a worker and for replay by the client. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

/** The directory holding this package's package.json, whether running from src/ or dist/. */
export function packageRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error('cannot find the durable-scratchpad package root');
    directory = parent;
  }
  return directory;
}
