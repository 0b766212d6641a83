import type { StageCycleInput as CycleInput, StageCycleResult as CycleResult } from '../../../../src/core/staged/input';
import { type ModelResponse, ZERO_USAGE } from '../../../../src/core/cycle/model';
import { StagedInputSchema, type StagedInput } from '../../../../src/core/staged/input';
import { NO_OP_CORRECTION } from '../../../../src/core/staged/rules';
import { SCRATCHPAD_READ } from '../../../../src/core/tools/observation';
import { PLAN_TOOLS, StagedRun } from '../../../../src/workflows/staged/staged-run';
import { resetWorkflowStub, workflowStub } from '../../../helpers/workflow-stub';

jest.mock('@temporalio/workflow', () => jest.requireActual('../../../helpers/workflow-stub').workflowModule());

const RUN_ID = 'staged/a1/1';
const usage = (inputTokens: number) => ({ ...ZERO_USAGE, inputTokens });

/**
 * The one place that knows how a staged run starts a stage's child cycle: whichever of `executeChild` or
 * `startChild` it calls, each cycle gets the next answer, and its id and input are recorded.
 */
/** The stage block's context of a stage cycle's input. */
function stageContextOf(input: CycleInput | undefined): string {
  return input?.stage.context ?? '';
}

function answerStageCycles(...answers: Partial<CycleResult>[]): { id: string; input: CycleInput }[] {
  const started: { id: string; input: CycleInput }[] = [];
  const answer = (options: { workflowId: string; args: [CycleInput] }): CycleResult => {
    const [input] = options.args;
    started.push({ id: options.workflowId, input });
    const next = answers.shift();
    if (!next) throw new Error(`no answer left for ${options.workflowId}`);
    const result = { agentId: input.agentId, cycleId: options.workflowId, outcome: 'completed' as const };
    return { ...result, after: input.before, iterations: 1, usage: usage(1), touchedPaths: [], ...next };
  };
  workflowStub.executeChild.mockImplementation(async (_type: unknown, options) => answer(options));
  workflowStub.startChild.mockImplementation(async (_type: unknown, options) => {
    const result = answer(options);
    return { workflowId: options.workflowId, result: async () => result, signal: async () => undefined };
  });
  return started;
}

function runOf(input: Partial<StagedInput> = {}): StagedRun {
  return new StagedRun(StagedInputSchema().parse({ agentId: 'a1', task: 'add a health endpoint', ...input }), RUN_ID);
}

function modelReply(partial: Partial<ModelResponse>): ModelResponse {
  return { text: '', toolCalls: [], stopReason: 'tool_use', usage: usage(100), model: 'scripted:a', ...partial };
}

const stage = { kind: 'stage' as const, stage: 'write src/health.ts', index: 1, label: 'stage-1' };
const changed = (...touchedPaths: string[]): Partial<CycleResult> => ({ touchedPaths });

beforeEach(resetWorkflowStub);

describe('StagedRun: the plan-only turn', () => {
  it('offers only the plan tool, with the prior scratchpad under the task, and keeps the stages and notes', async () => {
    const callModel = jest.fn(async () =>
      modelReply({
        toolCalls: [
          { id: 'c1', name: 'plan', input: { stages: ['route', ' handler ', ''], scratchpad: 'use express' } },
        ],
      }),
    );
    workflowStub.activities.callModel = callModel;
    const run = runOf({ priorScratchpad: 'last time: port 8080' });

    await run.makePlan();

    expect(callModel).toHaveBeenCalledTimes(1);
    expect(callModel.mock.calls[0]).toEqual([
      expect.objectContaining({ system: 'staged_plan', tools: PLAN_TOOLS, toolChoice: 'any' }),
    ]);
    const request = (callModel.mock.calls[0] as unknown as [{ messages: { content: string }[] }])[0];
    expect(request.messages[0]?.content).toMatch(/^Task: add a health endpoint[\s\S]*last time: port 8080$/);
    expect(run.plan).toEqual(['route', 'handler']);
    expect(run.notes).toBe('use express');
    expect(run.usage).toEqual(usage(100));
  });

  it('runs the task as one stage when the model gives no usable plan', async () => {
    workflowStub.activities.callModel = jest.fn(async () => modelReply({ text: 'I would start with a route.' }));
    const run = runOf();

    await run.makePlan();

    expect(run.plan).toEqual(['add a health endpoint']);
    expect(run.notes).toBeUndefined();
  });
});

describe('StagedRun: a stage', () => {
  it('runs in a fresh child cycle holding only the stage, offered the file tools', async () => {
    const cycles = answerStageCycles(changed('src/health.ts'));
    const run = runOf({ maxPaths: 2 });
    run.plan = ['write src/health.ts', 'test it'];

    const record = await run.runStage(stage);

    expect(record).toEqual({
      kind: 'stage',
      stage: 'write src/health.ts',
      cycleId: `${RUN_ID}/stage-1`,
      outcome: 'completed',
      touchedPaths: ['src/health.ts'],
      refusedPaths: [],
      change: 'changed',
    });
    expect(cycles.map((cycle) => cycle.id)).toEqual([`${RUN_ID}/stage-1`]);
    const input = cycles[0]?.input;
    expect(input).toMatchObject({ agentId: 'a1', cycleId: `${RUN_ID}/stage-1`, stage: { maxPaths: 2 } });
    expect(input?.before).toMatchObject({ current_task: 'write src/health.ts', pending_actions: [] });
    expect(input?.tools).not.toContain(SCRATCHPAD_READ);
    expect(stageContextOf(input)).toContain('test it');
    expect(stageContextOf(input)).not.toContain(NO_OP_CORRECTION);
  });

  it('sends a stage that changed nothing back with the correction until it changes files', async () => {
    const cycles = answerStageCycles(changed(), changed(), changed('src/health.ts'));
    const run = runOf({ maxCorrections: 3 });

    const record = await run.runStage(stage);

    expect(cycles.map((cycle) => cycle.id)).toEqual([
      `${RUN_ID}/stage-1`,
      `${RUN_ID}/stage-1-retry-1`,
      `${RUN_ID}/stage-1-retry-2`,
    ]);
    expect(cycles.map((cycle) => stageContextOf(cycle.input).includes(NO_OP_CORRECTION))).toEqual([false, true, true]);
    expect(run.stages.map((stageRecord) => [stageRecord.kind, stageRecord.touchedPaths.length])).toEqual([
      ['stage', 0],
      ['correction', 0],
      ['correction', 1],
    ]);
    expect(record).toMatchObject({ kind: 'correction', touchedPaths: ['src/health.ts'] });
  });

  it('stops correcting after maxCorrections, leaving the stage recorded as changing nothing', async () => {
    const cycles = answerStageCycles(changed(), changed(), changed());
    const run = runOf({ maxCorrections: 1 });

    const record = await run.runStage(stage);

    expect(cycles).toHaveLength(2);
    expect(record).toMatchObject({ kind: 'correction', outcome: 'completed', touchedPaths: [] });
    expect(run.failure).toBeUndefined();
  });

  it('does not correct a stage that ran out of iterations: only a claimed completion is distrusted', async () => {
    const cycles = answerStageCycles({ outcome: 'max_iterations', touchedPaths: [] });

    await runOf().runStage(stage);

    expect(cycles).toHaveLength(1);
  });

  it('ends the run on a failed cycle, naming the stage, without a correction', async () => {
    const cycles = answerStageCycles({ outcome: 'failed', error: 'ModelError.Auth: 401', touchedPaths: [] });
    const run = runOf();

    const record = await run.runStage(stage);

    expect(cycles).toHaveLength(1);
    expect(record.outcome).toBe('failed');
    expect(run.failure).toBe('stage-1 failed: ModelError.Auth: 401');
  });

  it('sends nothing back once the run has failed', async () => {
    const cycles = answerStageCycles({ outcome: 'failed', error: 'boom' }, changed(), changed());
    const run = runOf();

    await run.runStage(stage);
    await run.runStage({ kind: 'stage', stage: 'more', index: 2, label: 'stage-2' });

    expect(cycles.map((cycle) => cycle.id)).toEqual([`${RUN_ID}/stage-1`, `${RUN_ID}/stage-2`]);
    expect(run.failure).toBe('stage-1 failed: boom');
  });

  it('tracks every file once across stages, the latest notes, the usage, and the refused paths', async () => {
    answerStageCycles(
      { touchedPaths: ['a.ts', 'b.ts'], runNotes: 'first notes', usage: usage(10) },
      { touchedPaths: ['b.ts', 'c.ts'], refusedPaths: ['d.ts'], usage: usage(20) },
    );
    const run = runOf();

    await run.runStage(stage);
    const second = await run.runStage({ kind: 'stage', stage: 'more', index: 2, label: 'stage-2' });

    expect(run.files).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(run.notes).toBe('first notes');
    expect(run.usage).toEqual(usage(30));
    expect(second.refusedPaths).toEqual(['d.ts']);
  });

  it('lets only the first attempt of a repair read the stored verification output', async () => {
    const cycles = answerStageCycles(changed(), changed('fix.ts'));
    const run = runOf();

    await run.runStage({ kind: 'repair', stage: 'make `npm test` pass', label: 'repair-1', storedOutput: true });

    expect(cycles.map((cycle) => cycle.input.tools?.includes(SCRATCHPAD_READ))).toEqual([true, false]);
    expect(run.stages.map((record) => record.kind)).toEqual(['repair', 'correction']);
  });
});

describe('StagedRun: verification', () => {
  it('runs the command for the repair stage that would read its output, and keeps each result', async () => {
    const verification = { command: 'npm test', passed: false, exitCode: 1, timedOut: false, output: '1 failing' };
    const runVerification = jest.fn(async () => verification);
    workflowStub.activities.runVerification = runVerification;
    const run = runOf({ verifyTimeoutMs: 5000 });

    await expect(run.verify('npm test', 'repair-1')).resolves.toEqual(verification);

    expect(runVerification).toHaveBeenCalledWith({
      agentId: 'a1',
      turnId: `${RUN_ID}/repair-1`,
      command: 'npm test',
      timeoutMs: 5000,
    });
    expect(run.verifications).toEqual([verification]);
    expect(run.progress).toMatchObject({ phase: 'planning', verifications: [verification] });
  });
});
