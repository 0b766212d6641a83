import type { CycleOutcome } from '../core/cycle';
import { dispatch, recordToolResult } from '../core/dispatcher';
import { type Observation, observationText } from '../core/observation';
import { parseAction } from '../core/parse-action';
import { buildCyclePrompt } from '../core/prompts';
import type { CycleRun } from './cycle-run';

/** Seed 000's run_cycle: prompt from the scratchpad → model → parse → dispatch, until done or max_iterations. */
export async function runTaskLoop(run: CycleRun): Promise<CycleOutcome> {
  const { input } = run;
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    run.iterations = iteration;
    const directives = run.directivesFor(iteration);
    const prompt = run.decoratePrompt(
      buildCyclePrompt(run.state, { iteration, maxIterations: input.maxIterations, directives }),
    );
    const workTools = run.workTools();
    const response = await run.callModel({
      system: input.system,
      messages: [{ role: 'user', content: prompt }],
      tools: [...workTools, 'update_scratchpad', 'done'],
      toolChoice: 'any',
      model: input.model,
    });
    const step = dispatch(run.state, parseAction(response), workTools);
    let observation: Observation | undefined;
    if (step.kind === 'tool') {
      observation = await run.runTool(step.action, iteration);
      run.state = recordToolResult(step.state, step.action, observation);
    } else {
      run.state = step.state;
      if (step.kind === 'update') await run.enforceBudget();
    }
    run.trace.push({
      iteration,
      request: { promptChars: prompt.length, tools: [...workTools, 'update_scratchpad', 'done'] },
      response: {
        text: response.text.slice(0, 2000),
        toolCalls: response.toolCalls.map((call) => call.name),
        stopReason: response.stopReason,
      },
      dispatch: step.kind,
      ...('action' in step ? { action: { tool: step.action.tool, args: step.action.args } } : {}),
      ...(observation ? { observation: observationText(observation).slice(0, 2000) } : {}),
      ...('error' in step && step.error ? { error: step.error } : {}),
      usage: response.usage,
    });
    run.publish(step.kind === 'tool' || step.kind === 'unknown_tool' ? `${step.kind} ${step.action.tool}` : step.kind);
    if (step.kind === 'done') return 'completed';
  }
  return 'max_iterations';
}
