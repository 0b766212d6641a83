import { spawn } from 'node:child_process';
import type { ObservationStore } from '../../activities/observations/entry';
import { startConsole } from '../../console/server';
import { errorMessage } from '../../common/error-message';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import { parsePort } from '../options';
import { webUiUrl, workflowUrl } from '../format';
import * as runtime from '../runtime';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** The store archive pointers name, or none: a client-only install may lack the SQLite or Redis driver. */
async function observationStore(spec: string): Promise<ObservationStore | undefined> {
  try {
    const { openObservationStore } = await import('../../activities/observations/open-store');
    return openObservationStore(spec, { unref: true });
  } catch (error) {
    process.stderr.write(`archived text will not open: the observation store ${spec}: ${errorMessage(error)}\n`);
    return undefined;
  }
}

/** The platform's way to open a URL in the default browser; the URL is printed whatever becomes of it. */
function openInBrowser(url: string): void {
  const [program, ...args] =
    process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['cmd', '/c', 'start', ''] : ['xdg-open'];
  const child = spawn(program as string, [...args, url], { detached: true, stdio: 'ignore' });
  child.on('error', () => process.stderr.write('could not open a browser: open the URL above\n'));
  child.unref();
}

/** `scratchpad console`: a local web app over the client, reading agents, cycles and runs with no worker needed. */
export default defineCommand(
  (command) =>
    command
      .option('--port <n>', 'port to listen on (default: any free port)', parsePort)
      .option('--host <host>', 'address to listen on; anything but loopback is reachable from the network', '127.0.0.1')
      .option('--open', 'open the URL in the default browser'),
  async (options) => {
    const config = runtime.config();
    const client = await runtime.client(config);
    const observations = await observationStore(config.observations);
    const ui = webUiUrl(config);
    const namespace = client.options.namespace;
    let running;
    try {
      running = await startConsole({
        client,
        host: options.host,
        ...(options.port !== undefined && { port: options.port }),
        ...(observations && { observations }),
        webUi: (workflowId) => workflowUrl(ui, namespace, workflowId),
      });
    } catch (error) {
      throw new CliError(`the console cannot listen on ${options.host}:${options.port ?? 0}: ${errorMessage(error)}`);
    }
    if (!LOOPBACK.has(options.host)) {
      process.stderr.write(
        `warning: listening on ${options.host}: anyone who can reach it and has the token can act on your agents; ` +
          'the console speaks plain HTTP\n',
      );
    }
    process.stdout.write(`Console at ${running.url}\n(the token in this URL is the key to it; Ctrl-C stops it)\n`);
    if (options.open) openInBrowser(running.url);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await running.close();
    await observations?.close();
    return EXIT.ok;
  },
);
