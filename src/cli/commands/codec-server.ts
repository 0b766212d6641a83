import { startCodecServer } from '../../clients/codec-server';
import { EncryptionCodec } from '../../common/encryption-codec';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

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
