import { isIP } from 'node:net';
import type { Command } from 'commander';
import { CliError, EXIT } from '../errors';
import { collect, parseOrigin, parsePort, parsePositiveInt } from '../options';
import type { LazyAction } from './command-group';

const DEFAULT_PORT = 8888;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_MAX_CONCURRENT = 4;

/** `--host`: an IP address to bind, so the `Host` check has one address to compare with. */
function parseBindAddress(value: string): string {
  if (isIP(value) !== 0) return value;
  throw new CliError(`invalid --host "${value}": expected an IP address such as 127.0.0.1 or 0.0.0.0`, EXIT.usage);
}

/** Adds `codec-server` to the program. */
export function registerCodecServerCommands(program: Command, action: LazyAction): void {
  program
    .command('codec-server')
    .description(
      "decrypt payloads for the Temporal Web UI (Temporal's codec-server protocol): token required, CORS for the " +
        'UI only, loopback by default',
    )
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
    )
    .action(action(() => import('../commands/codec-server'), 'codecServerCommand'));
}
