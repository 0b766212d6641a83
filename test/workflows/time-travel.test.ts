import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ModelProvider } from '../../src/activities/model/provider';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { Agents } from '../../src/clients/agents';
import { TimeTravelError, cycleState, diffCycles, forkAgent, rewindAgent } from '../../src/clients/time-travel';
import { lineChanges } from '../../src/core/agent/memory-diff';
import type { CycleResult } from '../../src/core/cycle/input';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { waitFor } from '../helpers/temporal';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const turn = (reply: string, update: Record<string, unknown>): ScriptEntry[] => [
  { text: reply },
  { tool: 'update_scratchpad', args: update },
];

const SCRIPT: ScriptEntry[] = [
  ...turn('Hello, Ada.', { identity_user: 'Ada, a data engineer', trajectory_now: 'Introductions' }),
  ...turn('Lisbon it is.', { trajectory_now: 'Planning a trip to Lisbon', workspace: '- flights\n- hotel' }),
  ...turn('Porto instead.', { trajectory_now: 'Planning a trip to Porto', workspace: '- flights\n- train' }),
  // The fork's first turn, then the rewound agent's, then a turn held at the gate.
  ...turn('Still Lisbon?', { self_flags: 'REVISIT: the destination' }),
  ...turn('Back to introductions.', { trajectory_later: 'Ask about travel' }),
  ...turn('Held.', { trajectory_now: 'Held' }),
];

/** A provider that holds reflect calls while `held` is set, until `release()`. */
function holdingReflect() {
  const state = { held: false, release: () => undefined as void, arrived: () => undefined as void };
  let reflecting = Promise.resolve();
  let gate = Promise.resolve();
  const hold = () => {
    state.held = true;
    gate = new Promise<void>((resolve) => (state.release = resolve));
    reflecting = new Promise<void>((resolve) => (state.arrived = resolve));
  };
  const wrap = (model: ModelProvider): ModelProvider => ({
    spec: model.spec,
    async complete(request, signal) {
      if (state.held && request.system === 'reflect') {
        state.arrived();
        await gate;
      }
      return model.complete(request, signal);
    },
  });
  return { wrap, hold, release: () => state.release(), reflecting: () => reflecting };
}

describe('memory time travel: diff, fork and rewind, from histories with no model call', () => {
  it('diffs, forks and rewinds an agent with several cycles; the fork and the rewound agent go on from there', async () => {
    const holding = holdingReflect();
    const { worker, taskQueue, model } = await scriptedWorker(env, bundle, SCRIPT, 'time-travel', {}, holding);
    const suffix = `${process.pid}-${Date.now()}`;
    const target = { agentId: `travel-${suffix}`, taskQueue };
    const forkTarget = { agentId: `travel-fork-${suffix}`, taskQueue };
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      try {
        // Every cycle ends in a continue-as-new: what time travel records must cross it.
        await agents.configure(target, { continueAsNewEvery: 1 });
        for (const message of ['Hi, I am Ada.', 'Lisbon next month?', 'Actually Porto.']) {
          await agents.send(target, { message });
        }
        const cycle3 = env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 3));
        const after3 = ((await cycle3.result()) as CycleResult).after;
        await agents.configure(target, { maxIterations: 6 });
        const requests = model.requests.length;
        expect(requests).toBe(6);

        const oneCycle = await diffCycles(env.client, target.agentId, 2);
        expect(oneCycle.from).toMatchObject({ n: 2, state: 'before' });
        expect(oneCycle.to).toMatchObject({ n: 2, state: 'after' });
        expect(oneCycle.sections).toContainEqual({
          section: 'TRAJECTORY',
          part: 'Now',
          changes: [
            { op: '-', text: 'Introductions' },
            { op: '+', text: 'Planning a trip to Lisbon' },
          ],
        });
        const across = await diffCycles(env.client, target.agentId, 1, cycleWorkflowId(target.agentId, 3));
        expect(across.sections.map((part) => `${part.section}/${part.part}`)).toEqual([
          'TRAJECTORY/Now',
          'WORKSPACE/null',
        ]);
        expect(across.sections[1]?.changes).toEqual([
          { op: '-', text: '(empty)' },
          { op: '+', text: '- flights' },
          { op: '+', text: '- train' },
        ]);
        expect((await diffCycles(env.client, target.agentId, 3, 3)).sections).toEqual([]);

        const fork = await forkAgent(env.client, { agentId: target.agentId, at: 2, as: forkTarget.agentId });
        expect(fork).toMatchObject({ origin: { agent: target.agentId, cycle: 2 }, taskQueue });
        const after2 = (await cycleState(agents, target.agentId, 2, 'after')).scratchpad;
        expect(await agents.scratchpad(forkTarget.agentId)).toEqual(after2);
        const forkStatus = await agents.status(forkTarget.agentId);
        expect(forkStatus).toMatchObject({ cycleCount: 0, origin: { agent: target.agentId, cycle: 2 } });
        expect(forkStatus.settings).toMatchObject({ continueAsNewEvery: 1, maxIterations: 6 });
        await expect(forkAgent(env.client, { agentId: target.agentId, at: 1, as: forkTarget.agentId })).rejects.toThrow(
          `agent "${forkTarget.agentId}" already exists`,
        );

        const record = await rewindAgent(agents, target, 1, 'ada@laptop');
        expect(record).toMatchObject({ to: 1, by: 'ada@laptop' });
        const after1 = (await cycleState(agents, target.agentId, 1, 'after')).scratchpad;
        expect(await agents.scratchpad(target.agentId)).toEqual(after1);
        const rewound = await agents.status(target.agentId);
        expect(rewound.rewinds).toEqual([record]);
        // Diff, fork and rewind asked nothing of the model.
        expect(model.requests.length).toBe(requests);

        // The fork's first cycle starts from cycle 2's after-state; its origin survives its continue-as-new.
        await agents.send(forkTarget, { message: 'Where were we?' });
        const forkCycle = env.client.workflow.getHandle(cycleWorkflowId(forkTarget.agentId, 1));
        await forkCycle.result();
        expect((await cycleState(agents, forkTarget.agentId, 1, 'before')).scratchpad).toEqual(after2);
        expect(JSON.stringify(model.requests[requests]?.messages)).toContain('Planning a trip to Lisbon');
        const forkLater = await waitFor(
          () => agents.status(forkTarget.agentId),
          (status) => status.runs === 2,
        );
        expect(forkLater).toMatchObject({ runs: 2, origin: { agent: target.agentId, cycle: 2 } });

        // The rewound agent's next cycle is cycle 4, from cycle 1's after-state; cycles 2 and 3 stay in history.
        await agents.send(target, { message: 'Let us start over.' });
        const cycle4 = env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 4));
        await cycle4.result();
        expect((await cycleState(agents, target.agentId, 4, 'before')).scratchpad).toEqual(after1);
        expect((await cycleState(agents, target.agentId, 3, 'after')).scratchpad).toEqual(after3);
        // Cycle 4 ended the run the rewind was recorded in; the next run still has it.
        const later = await waitFor(
          () => agents.status(target.agentId),
          (status) => status.runs > rewound.runs,
        );
        expect(later).toMatchObject({ runs: rewound.runs + 1, cycleCount: 4, rewinds: [record] });

        // While a cycle runs (here: reflecting after its reply went out) rewind is refused and it has no after-state.
        holding.hold();
        await agents.send(target, { message: 'Hold on.' });
        await holding.reflecting();
        await expect(rewindAgent(agents, target, 2, 'ada@laptop')).rejects.toMatchObject({
          cause: expect.objectContaining({ message: expect.stringMatching(/a cycle runs .*cycle\/5/) }),
        });
        await expect(diffCycles(env.client, target.agentId, 5)).rejects.toThrow(
          `${cycleWorkflowId(target.agentId, 5)} has not finished (it is still running)`,
        );
        holding.release();
        await env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 5)).result();
      } finally {
        holding.release();
        for (const id of [target.agentId, forkTarget.agentId]) {
          await env.client.workflow
            .getHandle(agentWorkflowId(id))
            .terminate()
            .catch(() => undefined);
        }
      }
    });
  }, 180_000);

  it('names what it cannot find: an unknown agent, an unknown or malformed cycle', async () => {
    const agents = new Agents(env.client);
    const nobody = `travel-nobody-${process.pid}-${Date.now()}`;
    await expect(diffCycles(env.client, nobody, 1)).rejects.toThrow(new TimeTravelError(`unknown agent "${nobody}"`));
    await expect(forkAgent(env.client, { agentId: nobody, at: 1, as: `${nobody}-2` })).rejects.toThrow(
      `unknown agent "${nobody}"`,
    );
    await expect(cycleState(agents, nobody, 'agent/other/cycle/1', 'after')).rejects.toThrow(
      `cycle agent/other/cycle/1 is not a cycle of agent "${nobody}"`,
    );
    await expect(cycleState(agents, nobody, 'two', 'after')).rejects.toThrow('invalid cycle "two"');
  });

  it('diffs lines as a longest common subsequence, head and tail set aside', () => {
    expect(lineChanges(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd'])).toEqual([
      { op: '-', text: 'b' },
      { op: '+', text: 'x' },
    ]);
    expect(lineChanges([], ['new'])).toEqual([{ op: '+', text: 'new' }]);
    expect(lineChanges(['same'], ['same'])).toEqual([]);
    const long = Array.from({ length: 3000 }, (_, index) => `line ${index}`);
    expect(lineChanges(long, [...long.slice(0, 1500), 'inserted', ...long.slice(1500)])).toEqual([
      { op: '+', text: 'inserted' },
    ]);
  });
});
