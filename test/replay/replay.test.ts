import * as fs from 'node:fs';
import * as path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { workerSinks } from '../../src/workers/create-worker';
import { bundleWorkflows } from '../helpers/worker';

const HISTORIES = path.join(__dirname, 'histories');
const files = fs.readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));

function load(file: string) {
  return historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
}

/** Workflows that name their children after their own id replay under that id, not the file name. */
const WORKFLOW_IDS: Record<string, string> = {
  'staged-task-repaired.json': 'staged/replay-staged-task/1',
  'agent-cycle-subagent.json': 'agent/replay-agent-cycle-subagent/cycle/1',
  'staged-task-outcome-memo.json': 'staged/replay-staged-task-outcome-memo/1',
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A JSON payload's value, as the default converter wrote it. */
function decoded(payload: temporal.api.common.v1.IPayload | null | undefined): unknown {
  return payload?.data ? JSON.parse(Buffer.from(payload.data).toString('utf8')) : undefined;
}

/** Each memo the workflow upserted, in order, its fields decoded. */
function memos(events: HistoryEvent[]): Record<string, unknown>[] {
  return events.flatMap((event) => {
    const fields = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
    return fields ? [Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, decoded(value)]))] : [];
  });
}

/** Each value the workflow upserted for search attribute `key`, in order. */
function upserted(events: HistoryEvent[], key: string): unknown[] {
  return events.flatMap((event) => {
    const field = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[key];
    return field ? [decoded(field)] : [];
  });
}

/** The `patched()` ids a history recorded, in order. */
function patchIds(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const data = decoded(event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]);
    return data ? [(data as { id: string }).id] : [];
  });
}

let bundle: WorkflowBundleOption;
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
      ['subagentCycle', 'agent/replay-agent-cycle-subagent/cycle/1/sub/1'],
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

  // The refused first reply is corrected inside the one planning call (activities/model/forced-call.ts).
  it('covers a research run whose supervisor planned STRATEGY: one planning call, corrected, then workers', () => {
    const events = load('research-run-planned.json').events ?? [];
    const commands = events.flatMap((event) => {
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (activity) return [activity];
      return event.startChildWorkflowExecutionInitiatedEventAttributes ? ['child'] : [];
    });
    // Then one more: a new search query for the fact whose source was tombstoned.
    expect(commands.slice(0, 2)).toEqual(['callModel', 'child']);
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
    expect(children).toEqual([['investigationCycle', 'research/replay/worker/3/cycle']]);
    const cycle = load('research-worker-cycle.json').events ?? [];
    const activities = cycle.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toContain('boardWrite');
    expect(activities.at(-1)).toBe('boardWrite');
  });

  it("covers 0.5.0's cancelCycle: a chat turn cancelled mid-respond, recorded `cancelled`, memory kept, one more turn", () => {
    const events = load('agent-cancel-cycle.json').events ?? [];
    const accepted = events.flatMap((event) => event.workflowExecutionUpdateAcceptedEventAttributes ?? []);
    expect(accepted.map((update) => update.acceptedRequest?.input?.name)).toEqual([
      'send',
      'send',
      'cancelCycle',
      'send',
    ]);
    const cycle2 = 'agent/replay-agent-cancel/cycle/2';
    const children = events.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
    expect(children.map((child) => child.workflowId)).toEqual(
      [1, 2, 3].map((n) => `agent/replay-agent-cancel/cycle/${n}`),
    );
    const cancels = events.flatMap(
      (event) => event.requestCancelExternalWorkflowExecutionInitiatedEventAttributes ?? [],
    );
    expect(cancels.map((cancel) => [cancel.workflowExecution?.workflowId, cancel.childWorkflowOnly])).toEqual([
      [cycle2, true],
    ]);
    const cancelled = events.flatMap((event) => event.childWorkflowExecutionCanceledEventAttributes ?? []);
    expect(cancelled.map((child) => child.workflowExecution?.workflowId)).toEqual([cycle2]);
    // The update answers with the agent's record of the cycle once it has recorded it.
    const cancelId = accepted.find(
      (update) => update.acceptedRequest?.input?.name === 'cancelCycle',
    )?.protocolInstanceId;
    const answer = events.find(
      (event) => event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === cancelId,
    )?.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads?.[0];
    expect(decoded(answer)).toMatchObject({ cycleId: cycle2, trigger: 'chat', outcome: 'cancelled' });
    expect(upserted(events, 'LastOutcome')).toEqual(['completed', 'cancelled', 'completed']);
    // The scratchpad the agent keeps after the cancelled turn is the one it had after turn 1, to the byte.
    const scratchpads = memos(events).flatMap((memo) => (memo.scratchpad ? [memo.scratchpad] : []));
    expect(scratchpads).toHaveLength(4);
    expect(scratchpads[2]).toEqual(scratchpads[1]);
    expect(scratchpads[3]).not.toEqual(scratchpads[2]);

    const cycle = load('agent-cycle-cancelled.json').events ?? [];
    expect(cycle[0]?.workflowExecutionStartedEventAttributes?.parentWorkflowExecution?.workflowId).toBe(
      'agent/replay-agent-cancel',
    );
    expect(cycle.some((event) => event.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    expect(cycle.some((event) => event.activityTaskCancelRequestedEventAttributes)).toBe(true);
    expect(String(memos(cycle).at(-1)?.outcome)).toMatch(/^cancelled: .*keeps its scratchpad/);
    expect(upserted(cycle, 'CycleOutcome')).toEqual(['cancelled']);
    expect(cycle.at(-1)?.workflowExecutionCanceledEventAttributes).toBeTruthy();
  });

  it('covers the outcome memo of a failed cycle: the outcome line and details in its memo', () => {
    const events = load('agent-cycle-failed-outcome-memo.json').events ?? [];
    expect(events.some((event) => event.activityTaskFailedEventAttributes)).toBe(true);
    const [memo, ...more] = memos(events);
    expect(more).toEqual([]);
    expect(String(memo?.outcome)).toMatch(/^failed: .*401 invalid api key/);
    expect(String(memo?.details).split('\n')[0]).toBe(memo?.outcome);
    expect(upserted(events, 'CycleOutcome')).toEqual(['failed']);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('covers the outcome memo of a staged run: verified, with its stage and verification in the details', () => {
    const events = load('staged-task-outcome-memo.json').events ?? [];
    const children = events.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
    expect(children.map((child) => child.workflowId)).toEqual(['staged/replay-staged-task-outcome-memo/1/stage-1']);
    const activities = events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['runVerification']);
    const [memo, ...more] = memos(events);
    expect(more).toEqual([]);
    expect(memo?.outcome).toBe('verified: `test -f a.txt` passed');
    expect(String(memo?.details)).toContain('### Verifications (1)');
    expect(upserted(events, 'CycleOutcome')).toEqual(['verified']);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('carries no patch marker: histories are re-recorded instead (test/unit/repo/no-patches.test.ts)', () => {
    const marked = files.flatMap((file) => patchIds(load(file).events ?? []).map((id) => `${file}: ${id}`));
    expect(marked).toEqual([]);
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
