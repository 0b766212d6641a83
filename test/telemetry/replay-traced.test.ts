import * as fs from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { workerTelemetry } from '../../src/telemetry';
import { workerSinks } from '../../src/workers/create-worker';
import { tracedBundle } from './traced-worker';

const HISTORIES = path.join(__dirname, '..', 'replay', 'histories');
const files = fs.readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));
/** As test/replay/replay.test.ts names them: workflows that name their children after their own id. */
const WORKFLOW_IDS: Record<string, string> = {
  'staged-task-repaired.json': 'staged/replay-staged-task/1',
  'agent-cycle-subagent.json': 'agent/replay-agent-cycle-subagent/cycle/1',
  'staged-task-outcome-memo.json': 'staged/replay-staged-task-outcome-memo/1',
};

jest.setTimeout(120_000);

let bundle: WorkflowBundleOption;
const ended: string[] = [];

beforeAll(async () => {
  bundle = await tracedBundle();
});

describe('saved histories replay on a worker with telemetry on', () => {
  it.each(files)('%s replays clean, and no span is exported while it replays', async (file) => {
    const spanProcessor = new BasicTracerProvider().getActiveSpanProcessor();
    const counting = { ...spanProcessor, onEnd: (span: { name: string }) => ended.push(span.name), onStart: () => {} };
    const telemetry = workerTelemetry({ spanProcessor: counting as never, resource: Resource.empty() });
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
    await Worker.runReplayHistory(
      { workflowBundle: bundle, sinks: workerSinks(), plugins: telemetry!.plugins },
      history,
      WORKFLOW_IDS[file] ?? file,
    );
    expect(ended).toEqual([]);
  });
});
