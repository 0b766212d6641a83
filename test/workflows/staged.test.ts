import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ScriptEntry, ScriptedProvider } from '../../src/activities/model/scripted';
import type { ModelProvider } from '../../src/activities/model/provider';
import { previousScratchpad, startStaged } from '../../src/clients/staged-runs';
import { updateAgent } from '../../src/clients/agents';
import { runCycleUpdate } from '../../src/common/messages/agent';
import { cycleOutcomeKey } from '../../src/common/search-attributes';
import { NO_OP_CORRECTION } from '../../src/core/staged/rules';
import type { StagedInput, StagedResult } from '../../src/core/staged/input';
import { type ScriptedWorker, scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { uniqueId, waitFor } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

function agentId(): string {
  return uniqueId('staged');
}

function write(file: string, content: string, scratchpad?: unknown): ScriptEntry {
  return { tool: 'fs_write', args: { path: file, content, ...(scratchpad ? { scratchpad } : {}) } };
}
const done: ScriptEntry = { tool: 'done', args: { summary: 'stage complete' } };

async function startAndWait(worker: ScriptedWorker, input: Partial<StagedInput>) {
  const full: StagedInput = { agentId: agentId(), task: 'Write a sum module', ...input };
  const handle = await startStaged(env.client, worker.taskQueue, full);
  const result = await handle.result();
  const described = await handle.describe();
  expect(described.typedSearchAttributes.get(cycleOutcomeKey)).toBe(result.outcome);
  return { result, id: handle.workflowId };
}

/** A worker runs once: several staged runs of one test share its `runUntil`. */
async function run(worker: ScriptedWorker, input: Partial<StagedInput>): Promise<{ result: StagedResult; id: string }> {
  return worker.worker.runUntil(startAndWait(worker, input));
}

function userMessages(worker: ScriptedWorker): string[] {
  return worker.model.requests.map((request) => request.messages.map((message) => message.content).join('\n'));
}

const SUM = 'exports.sum = (a, b) => a + b;\n';
const ADD = 'exports.add = (a, b) => a + b;\n';
const TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./sum.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n";

describe('stagedTask: the seed 004 rounds of being fooled', () => {
  it('round 1: a no-op stage claiming completion gets the exact correction, then writes real files', async () => {
    const worker = await scriptedWorker(env, bundle, [done, write('sum.js', SUM), done], 'staged-noop');
    const { result } = await run(worker, { staged: false });
    const messages = userMessages(worker);
    expect(messages[0]?.split('\n')).not.toContain(NO_OP_CORRECTION);
    expect(messages[1]?.split('\n')).toContain('no files changed: give concrete files or patches');
    expect(result.stages.map((stage) => [stage.kind, stage.touchedPaths])).toEqual([
      ['stage', []],
      ['correction', ['sum.js']],
    ]);
    expect(fs.readFileSync(path.join(worker.tools.sandboxRoot, 'sum.js'), 'utf8')).toBe(SUM);
  });

  it('a stage whose cycle fails ends the run failed, with the reason', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [{ error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } }],
      'staged-stage-failed',
    );
    const { result } = await run(worker, { staged: false, verify: 'true' });
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/^stage-1 failed: .*401 invalid api key/);
    expect(result.verifications).toEqual([]);
  });

  it('a stage that keeps changing nothing is corrected a bounded number of times', async () => {
    const worker = await scriptedWorker(env, bundle, [done, done, done], 'staged-noop-bounded');
    const { result } = await run(worker, { staged: false, maxCorrections: 2 });
    expect(result.stages).toHaveLength(3);
    expect(worker.model.remaining).toBe(0);
    expect(result.outcome).toBe('unverified');
    expect(result.files).toEqual([]);
  });

  it('round 2: STAGED_DONE with no verification command ends unverified, files present; plan-only turn, fresh context', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [
        { tool: 'plan', args: { stages: ['write server.js', 'write its test'], scratchpad: { plan: ['a', 'b'] } } },
        write('server.js', 'require("node:http").createServer();\n// SERVER-BODY-MARKER\n', { done: ['server.js'] }),
        done,
        write('server.test.js', 'test();\n'),
        done,
      ],
      'staged-unverified',
    );
    const { result } = await run(worker, { task: 'Build an HTTP API with a health endpoint' });
    expect(result).toMatchObject({ outcome: 'unverified', staged: true, plan: ['write server.js', 'write its test'] });
    expect(result.reason).toMatch(/no verification command/);
    expect(result.files).toEqual(['server.js', 'server.test.js']);
    expect(fs.existsSync(path.join(worker.tools.sandboxRoot, 'server.js'))).toBe(true);
    expect(fs.existsSync(path.join(worker.tools.sandboxRoot, 'server.test.js'))).toBe(true);

    const [plan, ...stages] = worker.model.requests;
    expect(plan?.system).toBe('staged_plan');
    expect(plan?.tools).toEqual(['plan']);
    for (const request of stages)
      expect(request.tools).toEqual(['fs_read', 'fs_write', 'write_files', 'update_scratchpad', 'done']);

    const messages = userMessages(worker);
    // Stage 1's exchange (its write and the tool's answer) is in stage 1's second request only.
    expect(messages[2]).toContain('SERVER-BODY-MARKER');
    expect(messages[3]).not.toContain('SERVER-BODY-MARKER');
    expect(messages[3]).not.toContain('[TOOL] fs_write');
    expect(messages[3]).toContain('Stage 2 of 2: write its test');
    expect(messages[3]).toContain('Notes so far:\n{"done":["server.js"]}');
    expect(result.scratchpad).toBe('{"done":["server.js"]}');
  });

  it('round 3: verification fails against an API the code lacks, a repair stage fixes it → verified', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [write('sum.js', SUM), write('sum.test.js', TEST), done, write('sum.js', ADD), done],
      'staged-repair',
    );
    const { result } = await run(worker, { staged: false, verify: 'node --test' });
    expect(result.outcome).toBe('verified');
    expect(result.verifications.map((verification) => verification.passed)).toEqual([false, true]);
    expect(result.stages.map((stage) => stage.kind)).toEqual(['stage', 'repair']);
    const repairPrompt = userMessages(worker)[3];
    expect(repairPrompt).toContain('Verification `node --test` failed');
    expect(repairPrompt).toContain('add is not a function');
  });

  it('round 3 variant: still failing after maxRepairs → failed, files kept', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [write('sum.js', SUM), write('sum.test.js', TEST), done, write('sum.js', SUM), done],
      'staged-failed',
    );
    const { result } = await run(worker, { staged: false, verify: 'node --test', maxRepairs: 1 });
    expect(result.outcome).toBe('failed');
    expect(result.reason).toBe('`node --test` still fails after 1 repair stage(s)');
    expect(result.verifications).toHaveLength(2);
    expect(fs.existsSync(path.join(worker.tools.sandboxRoot, 'sum.test.js'))).toBe(true);
  });
});

describe('stagedTask: caps and the prior scratchpad', () => {
  it('refuses a write to a fourth path with an observation that says so', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [
        write('a.txt', 'a'),
        write('b.txt', 'b'),
        write('./a.txt', 'a2'),
        write('c.txt', 'c'),
        write('d.txt', 'd'),
        done,
      ],
      'staged-cap',
    );
    const { result } = await run(worker, { staged: false });
    expect(result.stages[0]).toMatchObject({ touchedPaths: ['a.txt', 'b.txt', 'c.txt'], refusedPaths: ['d.txt'] });
    expect(fs.existsSync(path.join(worker.tools.sandboxRoot, 'd.txt'))).toBe(false);
    expect(userMessages(worker)[5]).toContain('refused: this stage may touch at most 3 paths');
  });

  it('applies the cap to each file of an envelope-style write_files', async () => {
    const files = ['a', 'b', 'c', 'd'].map((name) => ({ path: `${name}.txt`, content: name }));
    const worker = await scriptedWorker(
      env,
      bundle,
      [{ tool: 'write_files', args: { files, scratchpad: 'four files' } }, done],
      'staged-write-files',
    );
    const { result } = await run(worker, { staged: false });
    expect(result.stages[0]).toMatchObject({ touchedPaths: ['a.txt', 'b.txt', 'c.txt'], refusedPaths: ['d.txt'] });
    expect(fs.existsSync(path.join(worker.tools.sandboxRoot, 'd.txt'))).toBe(false);
    expect(userMessages(worker)[1]).toContain('d.txt: refused: this stage may touch at most 3 paths');
    expect(result.scratchpad).toBe('four files');
  });

  it('puts the prior scratchpad at the bottom, cut at 2,000 characters; absent when empty', async () => {
    const worker = await scriptedWorker(
      env,
      bundle,
      [{ tool: 'plan', args: { stages: ['one'] } }, write('x.txt', 'x'), done, write('y.txt', 'y'), done],
      'staged-prior',
    );
    await worker.worker.runUntil(async () => {
      await startAndWait(worker, { staged: true, priorScratchpad: `${'p'.repeat(2000)}TAIL` });
      await startAndWait(worker, { staged: false, priorScratchpad: '' });
    });
    const messages = userMessages(worker);
    for (const message of messages.slice(0, 3))
      expect(message.endsWith(`## Prior scratchpad\n\n${'p'.repeat(2000)}`)).toBe(true);
    for (const message of messages.slice(3)) expect(message).not.toContain('Prior scratchpad');
  });

  it('"last" resolves to the previous run of the agent', async () => {
    const agent = agentId();
    const worker = await scriptedWorker(
      env,
      bundle,
      [write('x.txt', 'x', { next: 'write y' }), done, write('y.txt', 'y'), done],
      'staged-last',
    );
    const { first, second } = await worker.worker.runUntil(async () => {
      expect(await previousScratchpad(env.client, agent)).toBe('');
      const first = await startAndWait(worker, { agentId: agent, staged: false });
      // Visibility catches up with a closed run shortly after it closes.
      const prior = await waitFor(() => previousScratchpad(env.client, agent), { timeoutMs: 5000 });
      expect(prior).toBe('{"next":"write y"}');
      const second = await startAndWait(worker, { agentId: agent, staged: false, priorScratchpad: prior });
      return { first, second };
    });
    expect(first.id).toBe(`staged/${agent}/1`);
    expect(second.id).toBe(`staged/${agent}/2`);
    expect(userMessages(worker)[2]?.endsWith('## Prior scratchpad\n\n{"next":"write y"}')).toBe(true);
  });

  it('cycle: the prior scratchpad reaches an agent cycle, and "last" reads the notes a cycle left', async () => {
    const agent = agentId();
    const worker = await scriptedWorker(
      env,
      bundle,
      [write('n.txt', 'n', { next: 'from a cycle' }), done, done],
      'staged-cycle-prior',
    );
    const target = { agentId: agent, taskQueue: worker.taskQueue };
    const prior = await worker.worker.runUntil(async () => {
      await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['write n.txt'], priorScratchpad: 'P1' }]);
      const found = await waitFor(() => previousScratchpad(env.client, agent), { timeoutMs: 5000 });
      await updateAgent(env.client, target, runCycleUpdate, [{ tasks: ['again'], priorScratchpad: found }]);
      return found;
    });
    expect(prior).toBe('{"next":"from a cycle"}');
    const messages = userMessages(worker);
    expect(messages[0]?.endsWith('## Prior scratchpad\n\nP1')).toBe(true);
    expect(messages[2]?.endsWith('## Prior scratchpad\n\n{"next":"from a cycle"}')).toBe(true);
  });
});

describe('stagedTask: stage files travel with the run', () => {
  it("verification restores what the stages wrote, by reference, into a sandbox that lost it; a stage's read too", async () => {
    let sandbox = '';
    // Before each verification and each read, the files vanish from this sandbox, as on a host that never saw them.
    const forget = (model: ScriptedProvider): ModelProvider => ({
      spec: model.spec,
      async complete(request, signal) {
        const response = await model.complete(request, signal);
        if (/"(done|fs_read)"/.test(JSON.stringify(response)))
          fs.rmSync(path.join(sandbox, 'lib'), { recursive: true });
        return response;
      },
    });
    const worker = await scriptedWorker(
      env,
      bundle,
      [
        write('lib/sum.js', SUM),
        write('lib/sum.test.js', TEST),
        done,
        { tool: 'fs_read', args: { path: 'lib/sum.js' } },
        write('lib/sum.js', ADD),
        done,
      ],
      'staged-travel',
      {},
      { wrap: forget },
    );
    sandbox = worker.tools.sandboxRoot;
    const { result, id } = await run(worker, { staged: false, verify: 'node --test lib/' });
    expect(result.outcome).toBe('verified');
    expect(result.verifications.map((verification) => verification.passed)).toEqual([false, true]);
    // The repair stage's read found stage 1's file although this sandbox had lost it.
    expect(userMessages(worker)[4]).toContain(SUM.trim());
    expect(result.stageFiles?.map((file) => file.path)).toEqual(['lib/sum.test.js', 'lib/sum.js']);
    const newest = result.stageFiles?.find((file) => file.path === 'lib/sum.js');
    const entry = await worker.observations.info(newest?.contentId ?? '');
    expect(entry && (await worker.observations.content(entry))).toBe(ADD);
    // The verification requests in history carry references only, never the files' content.
    const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const requests = events
      .map((event) => event.activityTaskScheduledEventAttributes)
      .filter((scheduled) => scheduled?.activityType?.name === 'runVerification')
      .map((scheduled) => Buffer.from(scheduled?.input?.payloads?.[0]?.data ?? []).toString('utf-8'));
    expect(requests).toHaveLength(2);
    expect(JSON.parse(requests[1] as string).files).toEqual(result.stageFiles);
    for (const request of requests) expect(request).not.toContain('exports.');
  });
});
