// The worker process the fault suite and test/workflows/research-kill.test.ts kill with SIGKILL: the project's own
// worker from dist/ (npm run build), with its configuration from the environment as `scratchpad worker` reads it. It
// loads the workflow bundle the test built once (FAULT_WORKFLOW_BUNDLE), so a replacement polls within a second
// instead of bundling for several.
const { DefaultLogger, Runtime } = require('@temporalio/worker');
const { loadConfig } = require('../../dist/src/config');
const { createWorker } = require('../../dist/src/workers/create-worker');

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = loadConfig();
  const worker = await createWorker({
    config,
    modelSpec: config.SCRATCHPAD_MODEL,
    workerOptions: { workflowsPath: undefined, workflowBundle: { codePath: process.env.FAULT_WORKFLOW_BUNDLE } },
  });
  process.stdout.write('worker ready\n');
  await worker.run();
}

main().catch((error) => {
  process.stderr.write(`fault worker: ${error.stack ?? error}\n`);
  process.exit(1);
});
