import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute } from '../../src/cli/demo/research-scripts';
import type { CycleResult } from '../../src/core/cycle/input';

/** A cycle's result as a test reads it: an investigation's would carry its board entry. */
type AnyCycleResult = CycleResult & { boardEntry?: string };
import type { ResearchResult, WorkerResult } from '../../src/core/research/run';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { researchInvestigationId, researchWorkflowId, researchWorkerId, subagentCycleId } from '../../src/common/ids';
import { researchStatusQuery } from '../../src/common/messages/research';
import { agentIdKey } from '../../src/common/search-attributes';
import { useWorkflowEnvironment } from '../helpers/worker';
import { researchTestWorker } from '../helpers/research';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let web: FixtureWeb;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

beforeAll(async () => {
  web = await serveFixtureWeb(fixturePages({ Initech: { revenue: 'USD 42,000', employees: '12' } }));
});

afterAll(async () => {
  await web?.close();
});

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
const SUB_ROUTE = 'Sub: Initech employees';
const PLAIN_ROUTE = 'Plain: a cycle with no research fact';

function routes(base: string): Record<string, ScriptEntry[]> {
  const page = `${base}/initech`;
  return {
    [factRoute('Initech', 'revenue')]: [
      { tool: 'web_search', args: { query: 'Initech revenue' }, usage: usage(100, 10) },
      { tool: 'web_fetch', args: { url: page }, usage: usage(200, 20) },
      {
        tool: 'board_write',
        args: { status: 'VERIFIED', value: '42,000', source_url: page, step: 2, quote: 'revenue USD 42,000' },
        usage: usage(300, 30),
      },
    ],
    [factRoute('Initech', 'employees')]: [
      { tool: 'spawn_subagent', args: { task: 'Find the Initech headcount', context: SUB_ROUTE }, usage: usage(50, 5) },
      { tool: 'web_fetch', args: { url: page }, usage: usage(60, 6) },
      {
        tool: 'board_write',
        args: { status: 'VERIFIED', value: '12', source_url: page, step: 2, quote: 'employees 12' },
        usage: usage(70, 7),
      },
    ],
    // The worker's sub-agent: it may not write its parent's fact, nor spawn past the depth limit.
    [SUB_ROUTE]: [
      { tool: 'board_write', args: { status: 'VERIFIED', value: '12', source_url: page, step: 1 }, usage: usage(7, 1) },
      // A tool not offered is no call the request forced: the one corrective retry calls it again.
      { tool: 'board_write', args: { status: 'VERIFIED', value: '12', source_url: page, step: 1 }, usage: usage(7, 1) },
      { tool: 'spawn_subagent', args: { task: 'Go deeper', context: 'none' }, usage: usage(7, 1) },
      { tool: 'web_fetch', args: { url: page }, usage: usage(7, 1) },
      { tool: 'done', args: { summary: 'Initech has 12 employees' }, usage: usage(7, 1) },
    ],
    [PLAIN_ROUTE]: [
      { tool: 'board_write', args: { status: 'VERIFIED', value: '1', source_url: page, step: 1 } },
      { tool: 'board_write', args: { status: 'VERIFIED', value: '1', source_url: page, step: 1 } },
      { tool: 'done', args: { summary: 'nothing to write' } },
    ],
  };
}

let runs = 0;
const runIdFor = (name: string) => `${name}-${Date.now().toString(36)}-${++runs}`;

describe("research workers run on spawn_subagent's machinery", () => {
  it('investigates in child cycles with research tools only; usage, sub-agents included, rolls up to the supervisor', async () => {
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes(web.base));
    const runId = runIdFor('usage');
    const [w1, w2] = [researchWorkerId(runId, 1), researchWorkerId(runId, 2)];
    const { result, status, workers, sub } = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('research', {
        taskQueue,
        workflowId: researchWorkflowId(runId),
        args: [{ runId, question: 'Initech figures', entities: ['Initech'], fields: ['revenue', 'employees'] }],
      });
      const result: ResearchResult = await handle.result();
      const workers: WorkerResult[] = await Promise.all(
        [w1, w2].map((id) => env.client.workflow.getHandle(id).result()),
      );
      const subId = subagentCycleId(researchInvestigationId(w2), 1);
      const sub: AnyCycleResult = await env.client.workflow.getHandle(subId).result();
      return { result, status: await handle.query(researchStatusQuery), workers, sub };
    });
    expect(result.outcome).toBe('complete');
    expect(workers.map((w) => w.wrote)).toEqual([
      expect.stringMatching(/^VERIFIED e/),
      expect.stringMatching(/^VERIFIED e/),
    ]);
    expect(workers[0]).toMatchObject({ turns: 3, usage: usage(600, 60) });
    // The sub-agent's five calls (one a corrective retry) count toward its worker.
    expect(workers[1]).toMatchObject({ turns: 3, usage: usage(50 + 60 + 70 + 35, 5 + 6 + 7 + 5) });
    const total = usage(600 + 215, 60 + 23);
    expect(result.usage).toEqual({ usage: total, usageByModel: { 'scripted:research': total }, costUsd: 0 });
    expect(status.usage).toEqual(result.usage);

    const workerTools = ['web_search', 'web_fetch', 'scratchpad_read', 'board_write', 'spawn_subagent'];
    for (const request of model.requestsFor(factRoute('Initech', 'revenue'))) {
      expect(request.tools).toEqual([...workerTools, 'update_scratchpad', 'done']);
    }
    const subRequests = model.requestsFor(SUB_ROUTE);
    expect(subRequests).toHaveLength(5);
    expect(subRequests[0]?.tools).toEqual([
      'web_search',
      'web_fetch',
      'scratchpad_read',
      'spawn_subagent',
      'update_scratchpad',
      'done',
    ]);
    expect(subRequests[1]?.messages.at(-1)?.content).toContain('Your last reply did not call one of the tools.');
    expect(subRequests[2]?.messages[0]?.content).toContain('unknown tool "board_write"');
    expect(subRequests[3]?.messages[0]?.content).toContain(
      'spawn_subagent refused: this cycle is a sub-agent at depth 2',
    );
    expect(sub).toMatchObject({ outcome: 'completed', iterations: 4 });
    expect(sub.boardEntry).toBeUndefined();
  });

  it('records UNVERIFIED with the reason when the investigation runs out of turns or fails, usage still counted', async () => {
    const routes = {
      [factRoute('Initech', 'revenue')]: [{ tool: 'web_search', args: { query: 'Initech' }, usage: usage(11, 1) }],
      [factRoute('Initech', 'employees')]: [
        { error: { type: 'Fixture.Broken', message: 'model down', nonRetryable: true } },
      ],
    } as Record<string, ScriptEntry[]>;
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('unwritten');
    const result: ResearchResult = await worker.runUntil(
      env.client.workflow.execute('research', {
        taskQueue,
        workflowId: researchWorkflowId(runId),
        args: [
          {
            runId,
            question: 'Initech figures',
            entities: ['Initech'],
            fields: ['revenue', 'employees'],
            maxWorkerTurns: 1,
            maxAttemptsPerFact: 1,
          },
        ],
      }),
    );
    expect(result.outcome).toBe('incomplete');
    const reasons = Object.fromEntries(
      result.board.flatMap((entry) => (entry.type === 'UNVERIFIED' ? [[entry.body.field, entry.body.reason]] : [])),
    );
    expect(reasons).toEqual({
      revenue: 'no verified value within 1 turns',
      employees: expect.stringMatching(/^the investigation failed: .*model down/),
    });
    expect(result.usage?.usage).toEqual(usage(11, 1));
  });

  it("keeps a worker's sub-agent from fetching a tombstoned URL: it reads the same board", async () => {
    const dead = `${web.base}/dead`;
    const page = `${web.base}/initech`;
    const routes: Record<string, ScriptEntry[]> = {
      [factRoute('Initech', 'revenue')]: [
        { tool: 'web_fetch', args: { url: dead } },
        { tool: 'board_write', args: { status: 'FAILED_URL', url: dead, reason: 'HTTP 410' } },
      ],
      [factRoute('Initech', 'revenue', 2)]: [
        { tool: 'spawn_subagent', args: { task: 'Check the old source', context: 'Sub: dead source' } },
        { tool: 'web_fetch', args: { url: page } },
        {
          tool: 'board_write',
          args: { status: 'VERIFIED', value: '42,000', source_url: page, step: 2, quote: 'revenue USD 42,000' },
        },
      ],
      'Sub: dead source': [
        { tool: 'web_fetch', args: { url: `${dead}?` } },
        { tool: 'done', args: { summary: 'the old source is gone' } },
      ],
    };
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('tombstone');
    const before = web.requests.filter((path) => path === '/dead').length;
    const result: ResearchResult = await worker.runUntil(
      env.client.workflow.execute('research', {
        taskQueue,
        workflowId: researchWorkflowId(runId),
        args: [{ runId, question: 'Initech revenue', entities: ['Initech'], fields: ['revenue'] }],
      }),
    );
    expect(result.outcome).toBe('complete');
    expect(web.requests.filter((path) => path === '/dead').length - before).toBe(1);
    const sub = model.requestsFor('Sub: dead source');
    expect(sub).toHaveLength(2);
    expect(sub[1]?.messages[0]?.content).toContain(`${dead}? is tombstoned in this run`);
  });

  it('never offers board_write to a cycle without a research fact, and refuses the call with a clear observation', async () => {
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes(web.base));
    const agentId = `plain-${runIdFor('plain')}`;
    const result: AnyCycleResult = await worker.runUntil(
      env.client.workflow.execute('agentCycle', {
        taskQueue,
        workflowId: `agent/${agentId}/cycle/1`,
        args: [
          {
            agentId,
            before: { ...defaultScratchpad('Check the board'), current_task: 'Check', workspace: PLAIN_ROUTE },
            tools: ['web_fetch', 'board_write'],
          },
        ],
        typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
      }),
    );
    const requests = model.requestsFor(PLAIN_ROUTE);
    expect(requests[0]?.tools).toEqual(['web_fetch', 'update_scratchpad', 'done']);
    expect(requests[1]?.messages.at(-1)?.content).toContain('Your last reply did not call one of the tools.');
    expect(requests[2]?.messages[0]?.content).toContain('unknown tool "board_write"');
    expect(result.outcome).toBe('completed');
    expect(result.boardEntry).toBeUndefined();
  });
});
