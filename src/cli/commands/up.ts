import { bringUp, runningLines } from '../bring-up';
import { defineCommand } from '../command';
import { EXIT } from '../errors';
import * as runtime from '../runtime';
import { withToolOptions, workerOptions } from '../worker-options';

/** `scratchpad up`: a dev server and a worker in the background, each reused when it runs already. */
export default defineCommand(
  (command) => workerOptions(command),
  async (options) => {
    const config = withToolOptions(runtime.config(), options);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const running = await bringUp(config, { ...options, log });
    const asked = runtime.inProcessModel(config, options.model);
    if (!running.startedWorker && asked !== undefined && asked !== running.worker.model) {
      log(`The running worker has another model; \`npx scratchpad down\`, then \`up\` again, to use ${asked}.`);
    }
    process.stdout.write(`${runningLines(running).join('\n')}\n`);
    return EXIT.ok;
  },
);
