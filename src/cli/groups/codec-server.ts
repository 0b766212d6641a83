import type { Command } from 'commander';
import { parseOrigin, parsePort } from '../options';
import type { LazyAction } from './command-group';

const DEFAULT_PORT = 8888;

/** Adds `codec-server` to the program. */
export function registerCodecServerCommands(program: Command, action: LazyAction): void {
  program
    .command('codec-server')
    .description("decrypt payloads for the Temporal Web UI (Temporal's codec-server protocol, CORS for the UI)")
    .option('--port <n>', `port on 127.0.0.1 (default ${DEFAULT_PORT})`, parsePort, DEFAULT_PORT)
    .option('--origin <url>', 'the Web UI origin allowed to call it (default TEMPORAL_UI_URL)', parseOrigin)
    .action(action(() => import('../commands/codec-server'), 'codecServerCommand'));
}
