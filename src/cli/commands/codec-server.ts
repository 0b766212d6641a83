import { randomBytes } from 'node:crypto';
import { isLoopback, startCodecServer } from '../../clients/codec-server';
import { EncryptionCodec } from '../../common/encryption-codec';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';

// URL-safe without escaping, since the UI carries it in the endpoint's path; long enough not to be guessed.
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,512}$/;

export interface CodecServerCommandOptions {
  port: number;
  host?: string;
  origin?: string;
  token?: string;
  allowHost: string[];
  allowEncode?: boolean;
  maxBody: number;
  maxConcurrent: number;
}

function givenToken(options: CodecServerCommandOptions): string | undefined {
  const token = options.token ?? (process.env.SCRATCHPAD_CODEC_TOKEN || undefined);
  if (token !== undefined && !TOKEN_PATTERN.test(token)) {
    throw new CliError(
      'invalid codec token: expected 16-512 characters of A-Z a-z 0-9 . _ ~ - (e.g. openssl rand -hex 32)',
      EXIT.usage,
    );
  }
  return token;
}

/** `scratchpad codec-server`: decodes encrypted payloads for the Web UI until interrupted. */
export async function codecServerCommand(options: CodecServerCommandOptions): Promise<number> {
  const host = options.host ?? '127.0.0.1';
  const given = givenToken(options);
  if (given === undefined && !isLoopback(host)) {
    throw new CliError(
      `--host ${host} is not a loopback address: give the token explicitly (--token or SCRATCHPAD_CODEC_TOKEN)`,
      EXIT.usage,
    );
  }
  const config = runtime.config();
  if (config.encryptionKeys.length === 0) {
    throw new CliError('no encryption key is configured: set SCRATCHPAD_ENCRYPTION_KEY or SCRATCHPAD_ENCRYPTION_KEYS');
  }
  const token = given ?? randomBytes(32).toString('base64url');
  const origin = options.origin ?? new URL(config.TEMPORAL_UI_URL).origin;
  const server = await startCodecServer({
    codec: new EncryptionCodec(config.encryptionKeys),
    origin,
    token,
    port: options.port,
    host,
    allowHosts: options.allowHost,
    allowEncode: options.allowEncode === true,
    maxBodyBytes: options.maxBody,
    maxConcurrent: options.maxConcurrent,
  });
  // A generated token is shown this once; a given one is never echoed (terminals and CI logs keep what they print).
  const endpoint = `${server.url}/t/${given === undefined ? token : '<token>'}`;
  process.stderr.write(
    `Codec server at ${server.url} for the Web UI at ${origin}. Ctrl-C to stop.\n` +
      (given === undefined ? `Generated token (shown once): ${token}\n` : '') +
      `Web UI: Data Encoder > Codec Server endpoint ${endpoint}\n` +
      `  (or temporal server start-dev --ui-codec-endpoint ${endpoint}).\n` +
      `temporal CLI: --codec-endpoint ${server.url} --codec-auth "Bearer <token>".\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return EXIT.ok;
}
