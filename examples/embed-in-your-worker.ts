// Add durable-scratchpad agents to a Temporal worker you already run: your workflows and activities stay as they
// are; the plugin adds the agent workflows (bundled with yours), their activities and sinks.
//
//   npx ts-node examples/embed-in-your-worker.ts     (a Temporal server on localhost:7233)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ScratchpadPlugin, type ScratchpadPluginOptions } from 'durable-scratchpad/worker';

/** Your worker: your workflows and activities, plus the scratchpad plugin. */
export async function createYourWorker(options: {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  scratchpad: ScratchpadPluginOptions;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    workflowsPath: require.resolve('./your-workflows'),
    activities: {
      async makeGreeting(name: string): Promise<string> {
        return `Hello, ${name}!`;
      },
    },
    plugins: [new ScratchpadPlugin(options.scratchpad)],
  });
}

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-sandbox-'));
  const worker = await createYourWorker({
    connection,
    taskQueue: 'your-task-queue',
    scratchpad: {
      model: process.env.SCRATCHPAD_MODEL ?? `scripted:${path.join(__dirname, 'demo.jsonl')}`,
      anthropicApiKey: process.env.ANTHROPIC_API_KEY,
      tools: {
        sandboxRoot,
        shellAllow: ['echo', 'date'],
        shellTimeoutMs: 5000,
        fetchAllowHosts: [],
        fetchMaxBytes: 1 << 20,
      },
    },
  });
  await worker.run();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
