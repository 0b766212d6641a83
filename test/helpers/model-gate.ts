import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ModelProvider } from '../../src/activities/model/provider';
import { scriptedWorker } from './worker';

/**
 * A provider in front of a worker's model whose calls all wait for `release()`; `calling` resolves when the first one
 * arrives, so a test can act while a cycle is in the middle of a model call.
 */
export function modelGate() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const calling = new Promise<void>((resolve) => (started = resolve));
  const wrap = (model: ModelProvider): ModelProvider => ({
    spec: model.spec,
    async complete(request, signal) {
      started();
      await gate;
      return model.complete(request, signal);
    },
  });
  return { wrap, calling, release };
}

/**
 * A scripted worker behind a {@link modelGate} whose cycle takes two iterations (a memory update, then `done`), so
 * directives sent during its first model call are shown at the second.
 */
export async function gatedCycleWorker(env: TestWorkflowEnvironment, bundle: WorkflowBundleOption, name: string) {
  const { wrap, calling, release } = modelGate();
  const script = [
    { tool: 'update_scratchpad', args: { trajectory_now: 'Working on the task' } },
    { tool: 'done', args: { summary: 'read the directives' } },
  ];
  const { worker, taskQueue } = await scriptedWorker(env, bundle, script, name, {}, { wrap });
  return { worker, taskQueue, calling, release };
}
