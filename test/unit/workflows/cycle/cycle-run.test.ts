import type { ModelRequest, ModelResponse } from '../../../../src/core/cycle/model';
import { ZERO_USAGE } from '../../../../src/core/cycle/model';
import { CycleInputSchema, type CycleInput } from '../../../../src/core/cycle/input';
import { StageCycleInputSchema } from '../../../../src/core/staged/input';
import type { ToolCallInput } from '../../../../src/core/tools/observation';
import { defaultScratchpad, enqueueTasks } from '../../../../src/core/scratchpad/scratchpad';

// The kernel's activities, stubbed: the model answers from a script, tools echo their call.
const modelCalls: ModelRequest[] = [];
const toolCalls: ToolCallInput[] = [];
let script: ModelResponse['toolCalls'][] = [];

jest.mock('@temporalio/workflow', () => ({
  // Message definitions and proxies are plain objects outside a workflow; what runs in one is stubbed below.
  ...jest.requireActual('@temporalio/workflow'),
  proxyActivities: () => ({
    callModel: async (request: ModelRequest): Promise<ModelResponse> => {
      modelCalls.push(request);
      const toolCalls = script.shift();
      if (!toolCalls) throw new Error('script exhausted');
      return { text: '', toolCalls, stopReason: 'tool_use', usage: { ...ZERO_USAGE, inputTokens: 10 }, model: 'm' };
    },
    runTool: async (call: ToolCallInput) => {
      toolCalls.push(call);
      return { ok: true, result: `ran ${call.name}` };
    },
  }),
  setCurrentDetails: () => undefined,
  proxySinks: () => ({ timeline: { iteration: () => undefined } }),
}));

/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the mock above */
const { CycleRun } =
  require('../../../../src/workflows/cycle/cycle-run') as typeof import('../../../../src/workflows/cycle/cycle-run');
const { runTaskLoop } =
  require('../../../../src/workflows/cycle/task-loop') as typeof import('../../../../src/workflows/cycle/task-loop');
const { scratchpadTools } =
  require('../../../../src/workflows/agent/scratchpad-tools') as typeof import('../../../../src/workflows/agent/scratchpad-tools');
const { stageFeature } =
  require('../../../../src/workflows/staged/stage') as typeof import('../../../../src/workflows/staged/stage');
/* eslint-enable @typescript-eslint/no-require-imports */
type Feature = import('../../../../src/workflows/cycle/tool-handler').CycleFeature;

const call = (name: string, input: Record<string, unknown>, id = name) => ({ id, name, input });

function newRun(raw: Partial<CycleInput> & Record<string, unknown>, features: Feature[] = [scratchpadTools()]) {
  const before = enqueueTasks(defaultScratchpad('Kernel'), ['Write a file']);
  const input = CycleInputSchema().parse({ agentId: 'a', before, tools: ['echo', 'fs_write'], ...raw });
  const archived: string[] = [];
  const run = new CycleRun(
    input,
    'agent/a/cycle/1',
    async (section: string) => (archived.push(section), 'id'),
    features,
  );
  return { run, archived };
}

beforeEach(() => {
  modelCalls.length = 0;
  toolCalls.length = 0;
  script = [];
});

describe('the cycle kernel (CycleRun and the task loop), activities stubbed', () => {
  it('runs work tools in the runTool activity and the scratchpad verbs through their handlers', async () => {
    const { run } = newRun({});
    script = [
      [call('echo', { message: 'hi' })],
      [call('update_scratchpad', { trajectory_now: 'x' })],
      [call('done', { summary: 'ok' })],
    ];

    expect(await runTaskLoop(run)).toBe('completed');
    expect(toolCalls.map((entry) => entry.name)).toEqual(['echo']);
    expect(run.state.trajectory.now).toBe('x');
    expect(run.state.completed_tasks).toEqual([{ task: 'Write a file', summary: 'ok' }]);
    expect(run.trace.map((entry) => entry.dispatch)).toEqual(['tool', 'update', 'done']);
    expect(modelCalls[0]?.tools).toEqual(['echo', 'fs_write', 'update_scratchpad', 'done']);
  });

  it('without a handler for a verb, the call goes nowhere it should not: no handler, no activity for done', async () => {
    const { run } = newRun({ maxIterations: 1 }, []);
    script = [[call('done', { summary: 'ok' })]];

    expect(await runTaskLoop(run)).toBe('max_iterations');
    // The kernel itself knows no verb: an unregistered `done` is a tool like any other, for the activity to refuse.
    expect(toolCalls.map((entry) => entry.name)).toEqual(['done']);
  });

  it('answers a tool the phase does not offer with an observation naming what it offers', async () => {
    const { run } = newRun({ maxIterations: 1 });
    script = [[call('shell', { command: 'ls' })]];

    await runTaskLoop(run);
    expect(toolCalls).toEqual([]);
    expect(run.trace[0]).toMatchObject({ dispatch: 'unknown_tool', error: expect.stringContaining('available: echo') });
  });

  it("applies a feature's policy to runTool calls and its fields to each call, and collects its result", async () => {
    const stage = stageFeature(
      StageCycleInputSchema().parse({
        agentId: 'a',
        before: defaultScratchpad(),
        stage: { context: '## Stage 1', maxPaths: 1 },
      }),
    );
    const tagged: Feature = { callContext: { boardId: 'research/r' }, isFinished: () => toolCalls.length >= 2 };
    const { run } = newRun({ tools: ['fs_write'], maxIterations: 2 }, [scratchpadTools(), stage.feature, tagged]);
    script = [[call('fs_write', { path: 'a.txt', content: 'A' })], [call('fs_write', { path: 'b.txt', content: 'B' })]];

    expect(await runTaskLoop(run)).toBe('max_iterations');
    // The second path is past the cap: refused before the activity, so only one call reached it.
    expect(toolCalls.map((entry) => [entry.name, entry.args.path, entry.boardId])).toEqual([
      ['fs_write', 'a.txt', 'research/r'],
    ]);
    expect(stage.result()).toEqual({ touchedPaths: ['a.txt'], refusedPaths: ['b.txt'] });
    expect(run.decoratePrompt('prompt')).toBe('prompt\n\n## Stage 1');
  });

  it('lets a feature end the cycle as done would, and narrows the tools offered', async () => {
    let ended = false;
    const feature: Feature = {
      handlers: {
        finish: async (run, action) => ((ended = true), { step: { kind: 'tool', state: run.state, action } }),
      },
      isFinished: () => ended,
      offer: (tools) => [...tools.filter((tool) => tool !== 'fs_write'), 'finish'],
    };
    const { run } = newRun({}, [scratchpadTools(), feature]);
    script = [[call('finish', {})]];

    expect(await runTaskLoop(run)).toBe('completed');
    expect(modelCalls[0]?.tools).toEqual(['echo', 'finish', 'update_scratchpad', 'done']);
  });

  it('counts a child cycle’s usage as its own, in total and by model', () => {
    const { run } = newRun({});
    run.addChildUsage({
      usage: { ...ZERO_USAGE, inputTokens: 5 },
      usageByModel: { child: { ...ZERO_USAGE, inputTokens: 5 } },
    });
    expect(run.usage.inputTokens).toBe(5);
    expect(Object.keys(run.usageByModel)).toEqual(['child']);
  });
});
