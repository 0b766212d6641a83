import type { CycleOutcome } from '../../core/cycle/input';
import { dispatch } from '../../core/cycle/dispatch';
import { parseToolCalls } from '../../core/cycle/parse';
import { buildCyclePrompt, cyclePromptContent } from '../../core/cycle/prompts';
import { stepLabel } from '../../core/cycle/plan-calls';
import { traceEntries, traceEntry } from '../../core/cycle/trace';
import { isCut, outputCap } from '../../core/cycle/output-limits';
import type { CycleRun } from './cycle-run';
import { runCalls } from './run-calls';

/** The task loop (design.md, The cycle): prompt from the scratchpad → model → parse → dispatch, until done or max_iterations. */
export async function runTaskLoop(run: CycleRun): Promise<CycleOutcome> {
  const { input } = run;
  const system = run.features.find((feature) => feature.systemPrompt !== undefined)?.systemPrompt ?? 'cycle';
  for (let iteration = 1; iteration <= input.maxIterations; iteration++) {
    run.iterations = iteration;
    const directives = run.directivesFor(iteration);
    const workTools = run.workTools();
    const tools = [...workTools, 'update_scratchpad', 'done'];
    let prompt = '';
    const build = () => {
      prompt = run.decoratePrompt(
        buildCyclePrompt(run.state, { iteration, maxIterations: input.maxIterations, directives }),
      );
      return {
        system,
        messages: [{ role: 'user' as const, content: cyclePromptContent(run.state, prompt) }],
        tools,
        toolChoice: 'any' as const,
        model: input.model,
        maxTokens: outputCap(input, 'task'),
      };
    };
    const response = await run.callModel(build(), build);
    const read = parseToolCalls(response);
    // The note names the cap as the reason: a call it cut short is not asked again (activities/model/forced-call.ts).
    const parsed =
      !read.ok && isCut(response) ? { ...read, error: `${read.error} (the reply was cut at the output cap)` } : read;
    const request = { promptChars: prompt.length, tools };
    if (!parsed.ok) {
      run.state = dispatch(run.state, parsed, workTools).state;
      const call = { iteration, phase: 'task' as const, request, response, calls: [] };
      run.trace.push(traceEntry(call, { dispatch: 'parse_error', error: parsed.error }));
      run.publish('parse_error');
      continue;
    }
    const offered = { work: workTools, update: true, done: true };
    const handled = await runCalls(run, parsed.calls, iteration, { offered, notes: true });
    run.trace.push(...traceEntries({ iteration, phase: 'task', request, response, calls: parsed.calls }, handled));
    run.publish(stepLabel(handled, 'no call'));
    if (handled.some(({ step }) => step.kind === 'done') || run.isFinished()) return 'completed';
  }
  return 'max_iterations';
}
