import { offeredTools } from '../src/activities/model/offered-tools';
import { ScriptedProvider } from '../src/activities/model/scripted';
import { runObservedTool } from '../src/activities/tools/run-tool';
import { ACTIVITY_TOOLS } from '../src/core/tools/catalogue';
import { dispatch, recordToolResult } from '../src/core/cycle/dispatch';
import { type Usage, ZERO_USAGE, addUsage } from '../src/core/cycle/model';
import { parseAction } from '../src/core/cycle/parse';
import { buildCyclePrompt } from '../src/core/cycle/prompts';
import type { Scratchpad } from '../src/core/scratchpad/scratchpad';
import { createObservationRuntime } from '../src/activities/observations/runtime';
import { type ToolSetup, benchScratchpad, echoScript } from './cycle-script';
import { type Sample, timed } from './measure';

let cycleCount = 0;

/** What the in-process loop ended with, to check it did the same work as `agentCycle`. */
export interface InProcessResult {
  iterations: number;
  completed: boolean;
  after: Scratchpad;
  usage: Usage;
}

/**
 * `agentCycle`'s task loop without Temporal: the same pure functions, provider, and tool code (`runTool`'s, with its
 * observation store), called directly.
 */
export async function runInProcessCycle(iterations: number, setup: ToolSetup): Promise<InProcessResult> {
  const provider = new ScriptedProvider(echoScript(iterations), 'bench in-process');
  const runtime = createObservationRuntime(setup.observations);
  // Observations are stored by cycle id and step; each run is its own cycle, as each workflow is.
  const cycleId = `bench/in-process/${++cycleCount}`;
  const workTools = [...ACTIVITY_TOOLS];
  let state = benchScratchpad();
  let usage = ZERO_USAGE;
  for (let iteration = 1; iteration <= iterations; iteration++) {
    const prompt = buildCyclePrompt(state, { iteration, maxIterations: iterations });
    const response = await provider.complete({
      system: 'cycle',
      messages: [{ role: 'user', content: prompt }],
      tools: offeredTools([...workTools, 'update_scratchpad', 'done']),
      toolChoice: 'any',
      maxTokens: 2048,
    });
    usage = addUsage(usage, response.usage);
    const step = dispatch(state, parseAction(response), workTools);
    if (step.kind === 'tool') {
      const call = { cycleId, agentId: 'bench', step: iteration, name: step.action.tool, args: step.action.args };
      state = recordToolResult(step.state, step.action, await runObservedTool(call, setup.tools, runtime));
    } else {
      state = step.state;
    }
    if (step.kind === 'done') return { iterations: iteration, completed: true, after: state, usage };
  }
  return { iterations, completed: false, after: state, usage };
}

/** One timed in-process cycle; throws unless it ran all `iterations` and completed. */
export async function timeInProcessCycle(iterations: number, setup: ToolSetup): Promise<Sample> {
  const { ms, value } = await timed(() => runInProcessCycle(iterations, setup));
  if (!value.completed || value.iterations !== iterations) {
    throw new Error(`in-process cycle ran ${value.iterations} iterations, completed=${value.completed}`);
  }
  return { ms };
}
