import type { Connection } from '@temporalio/client';
import { registerSearchAttributes } from '../../clients/register-search-attributes';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import * as runtime from '../runtime';

/** `scratchpad setup`: register the project's search attributes on any cluster. */
export default defineCommand(
  (command) => command,
  async () => {
    const config = runtime.config();
    const client = await runtime.client(config);
    await registerSearchAttributes(client.connection as Connection, config.TEMPORAL_NAMESPACE);
    process.stdout.write(
      `Search attributes registered in namespace ${config.TEMPORAL_NAMESPACE} at ${config.TEMPORAL_ADDRESS}.\n`,
    );
    return EXIT.ok;
  },
);
