import * as fs from 'node:fs/promises';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { fetchHistory } from '../../clients/histories';
import { encryptionDataConverter } from '../../common/encryption-codec';
import { workerSinks, workflowWorkerOptions } from '../../workers/create-worker';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { errorMessage } from '../../common/error-message';

/** `scratchpad replay`: replays a fetched or saved history against the current workflow code. */
export default defineCommand(
  (command) =>
    command
      .argument('[workflowId]', 'workflow id to fetch from the server')
      .option('--file <history.json>', 'a saved history (JSON, as `temporal workflow show --output json` writes)')
      .option('--save <file>', 'also save the history as JSON'),
  async (workflowId, options) => {
    if (!workflowId === !options.file)
      throw new CliError('give either a WORKFLOW_ID or --file HISTORY.json', EXIT.usage);
    const config = runtime.config();
    let history;
    if (options.file) {
      try {
        history = historyFromJSON(JSON.parse(await fs.readFile(options.file, 'utf8')));
      } catch (error) {
        throw new CliError(`cannot read history ${options.file}: ${errorMessage(error)}`, EXIT.usage);
      }
    } else {
      history = await fetchHistory(await runtime.client(config), workflowId as string);
    }
    const events = history.events?.length ?? 0;
    if (events === 0 || !history.events?.[0]?.workflowExecutionStartedEventAttributes) {
      throw new CliError(
        `${options.file ?? workflowId} is not a workflow history: it must start with WorkflowExecutionStarted`,
        EXIT.usage,
      );
    }
    if (options.save) await fs.writeFile(options.save, historyToJSON(history));
    const label = workflowId ?? options.file;
    await runtime.installWorkerLogger();
    try {
      await Worker.runReplayHistory(
        {
          ...workflowWorkerOptions(),
          sinks: workerSinks(),
          dataConverter: encryptionDataConverter(config.encryptionKeys),
        },
        history,
        workflowId ?? 'replay',
      );
    } catch (error) {
      process.stdout.write(
        `${label}: NOT deterministic after replaying against the current code\n${errorMessage(error)}\n`,
      );
      return EXIT.error;
    }
    process.stdout.write(
      `${label}: ${events} events replayed; the current code is deterministic against this history\n`,
    );
    return EXIT.ok;
  },
);
