import { stopDevServer } from '../../../dev-server/local-server';
import { defineCommand } from '../../command';
import { CliError, EXIT } from '../../errors';
import * as runtime from '../../runtime';

/** `scratchpad server stop`: stop the detached dev server `npm start` or `up` left running (its workers stay). */
export default defineCommand(
  (command) => command,
  async () => {
    const config = runtime.config();
    const stopped = await stopDevServer(config.home);
    if (!stopped) throw new CliError('no dev server started by scratchpad is running');
    process.stdout.write('Dev server stopped.\n');
    return EXIT.ok;
  },
);
