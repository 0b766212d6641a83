import * as fs from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workerSinks } from '../../src/worker/worker';
import { bundleWorkflows } from '../helpers/worker';

const HISTORIES = path.join(__dirname, 'histories');
const files = fs.readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));

function load(file: string) {
  return historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
}

let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  bundle = await bundleWorkflows();
});

describe('saved histories replay against the current workflow code', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)('%s replays clean', async (file) => {
    await Worker.runReplayHistory({ workflowBundle: bundle, sinks: workerSinks() }, load(file), file);
  });

  it('covers the agent workflow across a continue-as-new', () => {
    const run1 = load('agent-continue-as-new-run1.json').events ?? [];
    const run2 = load('agent-continue-as-new-run2.json').events ?? [];
    expect(run1.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(run2[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
  });

  it('covers a research run: worker writes through updates, children, a completed synthesis', () => {
    const events = load('research-run.json').events ?? [];
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length).toBeGreaterThan(8);
    expect(events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(6);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('an edited history raises DeterminismViolationError', async () => {
    const history = load('agent-cycle-completed.json');
    // The second activity the cycle schedules is the echo tool; claim the workflow asked for a model call instead.
    const scheduled = (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes);
    const tool = scheduled.find(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    expect(tool).toBeDefined();
    tool!.activityTaskScheduledEventAttributes!.activityType!.name = 'callModel';
    // The error class lives in the workflow sandbox, so identify it by name rather than instanceof.
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle, sinks: workerSinks() }, history, 'edited'),
    ).rejects.toMatchObject({
      name: 'DeterminismViolationError',
    });
  });
});
