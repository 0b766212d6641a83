import type { Run } from '../groups/run';
import type { Command } from 'commander';
import { startCodecServer } from '../../clients/codec-server';
import { EncryptionCodec } from '../../common/encryption-codec';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

const DEFAULT_PORT = 8888;

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new CliError(`invalid --port "${value}": expected 1-65535`, EXIT.usage);
  }
  return port;
}

function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`invalid --origin "${value}": expected a URL such as http://localhost:8233`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`invalid --origin "${value}": expected http or https`, EXIT.usage);
  }
  return url.origin;
}

/** `scratchpad codec-server`: decodes encrypted payloads for the Web UI until interrupted. */
export async function codecServerCommand(options: { port: number; origin?: string }): Promise<number> {
  const config = runtime.config();
  if (config.encryptionKeys.length === 0) {
    throw new CliError('no encryption key is configured: set SCRATCHPAD_ENCRYPTION_KEY or SCRATCHPAD_ENCRYPTION_KEYS');
  }
  const origin = options.origin ?? new URL(config.TEMPORAL_UI_URL).origin;
  const server = await startCodecServer({
    codec: new EncryptionCodec(config.encryptionKeys),
    origin,
    port: options.port,
  });
  process.stderr.write(
    `Codec server at ${server.url} for the Web UI at ${origin}; start the UI with --ui-codec-endpoint ${server.url} ` +
      `(or set it under Data Encoder in the UI). Ctrl-C to stop.\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return EXIT.ok;
}

/** Adds `codec-server` to the program. */
export function registerCodecServerCommand(program: Command, run: Run): void {
  program
    .command('codec-server')
    .description("decrypt payloads for the Temporal Web UI (Temporal's codec-server protocol, CORS for the UI)")
    .option('--port <n>', `port on 127.0.0.1 (default ${DEFAULT_PORT})`, parsePort, DEFAULT_PORT)
    .option('--origin <url>', 'the Web UI origin allowed to call it (default TEMPORAL_UI_URL)', parseOrigin)
    .action(run(codecServerCommand));
}
