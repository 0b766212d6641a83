import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { isLoopback, startCodecServer } from '../../clients/codec-server';
import { EncryptionCodec } from '../../common/encryption-codec';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import { collect, parseOrigin, parsePort, parsePositiveInt } from '../options';
import * as runtime from '../runtime';

// URL-safe without escaping, since the UI carries it in the endpoint's path; long enough not to be guessed.
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,512}$/;

const DEFAULT_PORT = 8888;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_MAX_CONCURRENT = 4;

/** `--host`: an IP address to bind, so the `Host` check has one address to compare with. */
function parseBindAddress(value: string): string {
  if (isIP(value) !== 0) return value;
  throw new CliError(`invalid --host "${value}": expected an IP address such as 127.0.0.1 or 0.0.0.0`, EXIT.usage);
}

function givenToken(options: { token?: string }): string | undefined {
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
export default defineCommand(
  (command) =>
    command
      .option('--port <n>', 'port', parsePort, DEFAULT_PORT)
      .option('--host <address>', 'address to bind (default 127.0.0.1; any other needs --token)', parseBindAddress)
      .option('--origin <url>', 'the Web UI origin allowed to call it (default TEMPORAL_UI_URL)', parseOrigin)
      .option(
        '--token <token>',
        'the token every request carries (default SCRATCHPAD_CODEC_TOKEN, else a random one printed at start)',
      )
      .option('--allow-host <name>', 'another name the Host header may carry, e.g. a proxy (repeatable)', collect, [])
      .option('--allow-encode', 'also serve /encode (off: only /decode)')
      .option(
        '--max-body <bytes>',
        `largest request body (default ${DEFAULT_MAX_BODY})`,
        parsePositiveInt('--max-body', 256 * 1024 * 1024),
        DEFAULT_MAX_BODY,
      )
      .option(
        '--max-concurrent <n>',
        `requests at once; more get 503 (default ${DEFAULT_MAX_CONCURRENT})`,
        parsePositiveInt('--max-concurrent', 256),
        DEFAULT_MAX_CONCURRENT,
      ),
  async (options) => {
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
      throw new CliError(
        'no encryption key is configured: set SCRATCHPAD_ENCRYPTION_KEY or SCRATCHPAD_ENCRYPTION_KEYS',
      );
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
  },
);
