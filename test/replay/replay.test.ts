import * as fs from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workerSinks } from '../../src/workers/create-worker';
import { bundleWorkflows } from '../helpers/worker';
import { PATCHES } from '../../src/workflows/compat';

const HISTORIES = path.join(__dirname, 'histories');
const files = fs.readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));

function load(file: string) {
  return historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
}

/** Workflows that name their children after their own id replay under that id, not the file name. */
const WORKFLOW_IDS: Record<string, string> = {
  'staged-task-repaired.json': 'staged/replay-staged-task/1',
  'agent-cycle-subagent.json': 'agent/replay-agent-cycle-subagent/cycle/1',
};

let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  bundle = await bundleWorkflows();
});

describe('saved histories replay against the current workflow code', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)('%s replays clean', async (file) => {
    await Worker.runReplayHistory(
      { workflowBundle: bundle, sinks: workerSinks() },
      load(file),
      WORKFLOW_IDS[file] ?? file,
    );
  });

  it('covers the agent workflow across a continue-as-new', () => {
    const run1 = load('agent-continue-as-new-run1.json').events ?? [];
    const run2 = load('agent-continue-as-new-run2.json').events ?? [];
    expect(run1.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(run2[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
  });

  it('covers a staged run that was corrected, repaired and verified (seed 004)', () => {
    const events = load('staged-task-repaired.json').events ?? [];
    const children = events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes);
    const verifications = events.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runVerification',
    );
    expect(children.map((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId)).toEqual([
      'staged/replay-staged-task/1/stage-1',
      'staged/replay-staged-task/1/stage-1-retry-1',
      'staged/replay-staged-task/1/repair-1',
    ]);
    expect(verifications).toHaveLength(2);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it("covers seed 001's spawn_subagent: a child cycle whose summary is the parent's observation", () => {
    const events = load('agent-cycle-subagent.json').events ?? [];
    const started = events.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
    expect(started.map((child) => [child.workflowType?.name, child.workflowId])).toEqual([
      ['agentCycle', 'agent/replay-agent-cycle-subagent/cycle/1/sub/1'],
    ]);
    expect(events.some((event) => event.childWorkflowExecutionCompletedEventAttributes)).toBe(true);
    // The child's model calls ran in the child, not as activities of the parent.
    const activities = events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['callModel', 'callModel', 'runTool', 'callModel']);
    const child = load('agent-cycle-subagent-child.json').events ?? [];
    expect(child[0]?.workflowExecutionStartedEventAttributes?.parentWorkflowExecution?.workflowId).toBe(
      'agent/replay-agent-cycle-subagent/cycle/1',
    );
  });

  it('covers a research run: worker writes through updates, children, a completed synthesis', () => {
    const events = load('research-run.json').events ?? [];
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length).toBeGreaterThan(8);
    expect(events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(6);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('covers a research run whose supervisor planned STRATEGY: two planning calls (one corrected), then workers', () => {
    const events = load('research-run-planned.json').events ?? [];
    const commands = events.flatMap((event) => {
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (activity) return [activity];
      return event.startChildWorkflowExecutionInitiatedEventAttributes ? ['child'] : [];
    });
    expect(commands.slice(0, 3)).toEqual(['callModel', 'callModel', 'child']);
    expect(commands.filter((command) => command === 'callModel')).toHaveLength(2);
    expect(commands.filter((command) => command === 'child')).toHaveLength(6);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
    // The saved run that gave its lists made no model call of its own.
    const given = load('research-run.json').events ?? [];
    expect(given.some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')).toBe(
      false,
    );
  });

  it("covers a research worker: its claim, its investigation as a child cycle, and the cycle's board write", () => {
    const worker = load('research-worker.json').events ?? [];
    const children = worker.flatMap((event) => {
      const started = event.startChildWorkflowExecutionInitiatedEventAttributes;
      return started ? [[started.workflowType?.name, started.workflowId]] : [];
    });
    expect(children).toEqual([['agentCycle', 'research/replay/worker/3/cycle']]);
    const cycle = load('research-worker-cycle.json').events ?? [];
    const activities = cycle.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toContain('boardWrite');
    expect(activities.at(-1)).toBe('boardWrite');
  });

  it('carries no patch marker that workflows/compat.ts does not list', () => {
    const listed = new Set(PATCHES.map((patch) => patch.id));
    const unlisted = files.flatMap((file) =>
      (load(file).events ?? []).flatMap((event) => {
        const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
        const id = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id : undefined;
        return id !== undefined && !listed.has(id) ? [`${file}: ${id}`] : [];
      }),
    );
    expect(unlisted).toEqual([]);
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
