import * as fs from 'node:fs/promises';
import YAML from 'yaml';
import { errorMessage } from '../common/error-message';
import { type Scratchpad, normalizeScratchpad } from '../core/scratchpad/scratchpad';
import { CliError, EXIT } from './errors';
import { firstLine } from './turns';

/** The `format` an export document carries, so `import` tells it from a bare scratchpad. */
export const EXPORT_FORMAT = 'durable-scratchpad/agent-v1';

/** Reads an export document, or a bare scratchpad in YAML or JSON; a bad one is one line naming the field. */
export async function readImport(file: string): Promise<Scratchpad> {
  let parsed: unknown;
  try {
    parsed = YAML.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${firstLine(errorMessage(error))}`, EXIT.usage);
  }
  const isExport = (parsed as { format?: string } | null)?.format === EXPORT_FORMAT;
  const body = isExport ? (parsed as { scratchpad?: unknown }).scratchpad : parsed;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const what = isExport ? 'its "scratchpad" field is not an object' : 'expected an object of scratchpad keys';
    throw new CliError(`${file} does not hold a valid scratchpad: ${what}`, EXIT.usage);
  }
  try {
    return normalizeScratchpad(body);
  } catch (error) {
    throw new CliError(`${file} does not hold a valid scratchpad: ${firstLine(errorMessage(error))}`, EXIT.usage);
  }
}
