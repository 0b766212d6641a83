import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { type BoardWriteOutcome, createResearchActivities } from '../../src/activities/research/board';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { demoRoutes, factRoute, rowQuote, verifyScript } from '../../src/cli/demo/research-scripts';
import type { BoardEntry } from '../../src/core/research/board';
import type { ResearchInput } from '../../src/core/research/run';
import { researchWorkflowId, researchWorkerId } from '../../src/common/ids';
import {
  boardQuery,
  researchDirectiveSignal,
  researchStatusQuery,
  synthesizeUpdate,
  writeUpdate,
} from '../../src/common/messages/research';
import { testEnvironment, waitFor } from '../helpers/temporal';
import { bundleWorkflows } from '../helpers/worker';
import { researchTestWorker, workerToken } from '../helpers/research';

jest.setTimeout(120_000);

const COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
  Initech: { revenue: 'USD 42,000', employees: '12' },
  Umbrella: { revenue: 'USD 7,777,777', employees: '31,337' },
};

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let web: FixtureWeb;

beforeAll(async () => {
  env = await testEnvironment();
  bundle = await bundleWorkflows();
  web = await serveFixtureWeb(fixturePages(COMPANIES));
});

afterAll(async () => {
  await web?.close();
  await env?.teardown();
});

function researchWorker(routes: Record<string, ScriptEntry[]>) {
  return researchTestWorker(env, bundle, web, routes);
}

let runs = 0;
function runIdFor(name: string): string {
  runs += 1;
  return `${name}-${Date.now().toString(36)}-${runs}`;
}

function startRun(taskQueue: string, input: ResearchInput) {
  return env.client.workflow.start('research', {
    taskQueue,
    workflowId: researchWorkflowId(input.runId),
    args: [input],
  });
}

/** A run over Initech's revenue and employees, once both workers have claimed their fact. */
async function startInitechClaimed(taskQueue: string, runId: string) {
  const handle = await startRun(taskQueue, {
    runId,
    question: 'Initech figures',
    entities: ['Initech'],
    fields: ['revenue', 'employees'],
  });
  await waitFor(async () => (await handle.query(researchStatusQuery)).facts.every((fact) => fact.state === 'PENDING'));
  return handle;
}

/** The quote of `field`'s row on `entity`'s fixture page. */
const quoteOf = (entity: string, field: 'revenue' | 'employees') =>
  rowQuote(field, COMPANIES[entity as keyof typeof COMPANIES][field]);

const ofType = (board: BoardEntry[], type: BoardEntry['type']) => board.filter((entry) => entry.type === type);

describe('research run on the dev server', () => {
  it('reaches SYNTHESIS citing only VERIFIED facts: a false claim is re-delegated, a dead URL tombstoned', async () => {
    const b = web.base;
    const routes = demoRoutes(b);
    const { worker, taskQueue, model } = await researchWorker(routes);
    const runId = runIdFor('full');
    const result = await worker.runUntil(async () => {
      const handle = await startRun(taskQueue, {
        runId,
        question: 'Revenue and employees of Acme and Globex',
        entities: ['Acme', 'Globex'],
        fields: ['revenue', 'employees'],
        maxWorkers: 4,
      });
      const outcome = await handle.result();
      return { outcome, board: await handle.query(boardQuery) };
    });
    expect(result.outcome.outcome).toBe('complete');
    const board = result.board;
    const synthesis = ofType(board, 'SYNTHESIS');
    expect(synthesis).toHaveLength(1);
    const verifiedIds = ofType(board, 'VERIFIED').map((entry) => entry.id);
    expect(verifiedIds).toHaveLength(4);
    expect(result.outcome.citations.sort()).toEqual([...verifiedIds].sort());
    expect(result.outcome.answer).toContain('1234567');

    const unverified = ofType(board, 'UNVERIFIED');
    expect(unverified).toHaveLength(1);
    expect(unverified[0]).toMatchObject({ body: { entity: 'Globex', field: 'employees', claimedValue: '1,200' } });
    expect(JSON.stringify(unverified[0]?.body)).toContain('does not occur');
    const redelegations = ofType(board, 'PENDING').filter((entry) => entry.author.role === 'supervisor');
    expect(redelegations.map((entry) => (entry.body as { entity: string; field: string }).field).sort()).toEqual([
      'employees',
      'revenue',
    ]);
    // Re-delegated to new workers: the strategy assigned workers 1-4 to the four facts.
    expect(redelegations.map((entry) => (entry.body as { assignedTo: string }).assignedTo).sort()).toEqual([
      researchWorkerId(runId, 5),
      researchWorkerId(runId, 6),
    ]);

    const failed = ofType(board, 'FAILED_URL');
    const tombstones = ofType(board, 'TOMBSTONE');
    expect(failed).toHaveLength(1);
    expect(tombstones).toMatchObject([{ author: { role: 'supervisor' }, body: { url: `${b}/dead`, permanent: true } }]);
    expect(board.indexOf(tombstones[0] as BoardEntry)).toBeGreaterThan(board.indexOf(failed[0] as BoardEntry));
    expect(web.requests.filter((path) => path === '/dead')).toHaveLength(1);
    const retry = model.requestsFor(factRoute('Globex', 'revenue', 2));
    expect(retry[0]?.messages[0]?.content).toContain(`Tombstoned (never fetch): ${b}/dead`);
    expect(retry[1]?.messages.at(-1)?.content).toContain('is tombstoned in this run');
  });

  it('refuses forged writes and an early synthesis, and reads a mid-run directive into STRATEGY without restarting workers', async () => {
    const b = web.base;
    const routes = {
      [factRoute('Initech', 'revenue')]: verifyScript(
        b,
        'Initech',
        '/initech',
        '42,000',
        rowQuote('revenue', 'USD 42,000'),
        4000,
      ),
      [factRoute('Initech', 'employees')]: verifyScript(
        b,
        'Initech',
        '/initech',
        '12',
        rowQuote('employees', '12'),
        4000,
      ),
    };
    const { worker, taskQueue } = await researchWorker(routes);
    const runId = runIdFor('forged');
    const w1 = researchWorkerId(runId, 1);
    const w2 = researchWorkerId(runId, 2);
    await worker.runUntil(async () => {
      const handle = await startInitechClaimed(taskQueue, runId);
      const before = await handle.query(boardQuery);
      // w1's own token (read from its history, as whoever reads history without the codec can): the board's rules
      // still refuse each of these writes (research-verified.test.ts forges writes without it).
      const token = await workerToken(env.client, w1);
      const fact = { entity: 'Initech', field: 'revenue' };
      const url = `${b}/initech`;
      const attempts: [string, unknown, unknown][] = [
        [
          '[permission]',
          { role: 'worker', id: w1 },
          { type: 'TOMBSTONE', body: { ...fact, url, failureReason: 'x', permanent: true } },
        ],
        ['[permission]', { role: 'worker', id: w1 }, { type: 'SYNTHESIS', body: { answer: 'x', citations: ['e1'] } }],
        [
          '[assignment]',
          { role: 'worker', id: w1 },
          {
            type: 'VERIFIED',
            body: { ...fact, field: 'employees', value: '12', sourceUrl: url, retrievedBy: w1, evidence: { step: 1 } },
          },
        ],
        [
          '[permission]',
          { role: 'user', id: 'mallory' },
          { type: 'VERIFIED', body: { ...fact, value: '1', sourceUrl: url, retrievedBy: w1, evidence: { step: 1 } } },
        ],
        ['[origin]', { role: 'supervisor', id: 'me' }, { type: 'STRATEGY', body: {} }],
        [
          '[origin]',
          { role: 'worker', id: researchWorkerId(runId, 99) },
          { type: 'UNVERIFIED', body: { ...fact, reason: 'x' } },
        ],
        [
          'invalid VERIFIED',
          { role: 'worker', id: w1 },
          { type: 'VERIFIED', body: { ...fact, value: 'x'.repeat(5000) } },
        ],
      ];
      for (const [rule, author, draft] of attempts) {
        const refusal = handle.executeUpdate(writeUpdate, { args: [{ author: author as never, draft, token }] });
        await expect(refusal).rejects.toThrow();
        await refusal.catch((error: Error) => expect(`${error.message} ${String(error.cause)}`).toContain(rule));
      }
      const early = handle.executeUpdate(synthesizeUpdate, { args: [] });
      await early.catch((error: Error) => expect(String(error.cause)).toMatch(/\[gate\].*2 PENDING/));
      await expect(early).rejects.toThrow();
      expect(await handle.query(boardQuery)).toEqual(before);

      await handle.signal(researchDirectiveSignal, { text: 'prefer audited annual reports', by: 'alice' });
      await waitFor(async () => ofType(await handle.query(boardQuery), 'STRATEGY').length === 2);
      const outcome = await handle.result();
      expect(outcome.outcome).toBe('complete');
      const board = await handle.query(boardQuery);
      const strategies = ofType(board, 'STRATEGY');
      expect(strategies[1]).toMatchObject({ body: { directives: ['prefer audited annual reports'] } });
      expect(ofType(board, 'USER_DIRECTIVE')).toMatchObject([{ author: { role: 'user', id: 'alice' } }]);
      // Both workers ran once, start to finish: the directive did not stop or restart them.
      expect((await handle.query(researchStatusQuery)).workersStarted).toBe(2);
      for (const id of [w1, w2]) {
        expect(await env.client.workflow.getHandle(id).result()).toMatchObject({
          turns: 3,
          wrote: expect.stringMatching(/^VERIFIED/),
        });
      }
    });
  });

  it('writes once when a boardWrite attempt is retried after the supervisor accepted it', async () => {
    const routes = {
      [factRoute('Initech', 'revenue')]: verifyScript(
        web.base,
        'Initech',
        '/initech',
        '42,000',
        rowQuote('revenue', 'USD 42,000'),
        10_000,
      ),
      [factRoute('Initech', 'employees')]: verifyScript(
        web.base,
        'Initech',
        '/initech',
        '12',
        rowQuote('employees', '12'),
        10_000,
      ),
    };
    const { worker, taskQueue } = await researchWorker(routes);
    const runId = runIdFor('retried-write');
    const w1 = researchWorkerId(runId, 1);
    await worker.runUntil(async () => {
      const handle = await startInitechClaimed(taskQueue, runId);
      const { boardWrite } = createResearchActivities(env.client, undefined as never);
      const args = {
        supervisorId: researchWorkflowId(runId),
        request: {
          author: { role: 'worker' as const, id: w1 },
          draft: { type: 'UNVERIFIED' as const, body: { entity: 'Initech', field: 'revenue', reason: 'paywalled' } },
          token: await workerToken(env.client, w1),
        },
      };
      // Two attempts of one activity (its first worker died before reporting): the same id, attempt 1 then 2.
      const info = { workflowExecution: { workflowId: w1, runId: 'r1' }, activityId: '4' };
      const logger = new DefaultLogger('ERROR');
      const attempt = (n: number): Promise<BoardWriteOutcome> =>
        new MockActivityEnvironment({ ...info, attempt: n }, { logger }).run(boardWrite, args);
      const first = await attempt(1);
      const second = await attempt(2);
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
      expect(ofType(await handle.query(boardQuery), 'UNVERIFIED')).toHaveLength(1);
      await handle.terminate('test done');
    });
  });

  it('loses no write when 8 workers write at once', async () => {
    const entities = ['Acme', 'Globex', 'Initech', 'Umbrella'];
    const values: Record<string, [string, string]> = {
      Acme: ['1,234,567', '5000'],
      Globex: ['890000', '1,200'],
      Initech: ['42000', '12'],
      Umbrella: ['7,777,777', '31337'],
    };
    const routes = Object.fromEntries(
      entities.flatMap((entity) => [
        [
          factRoute(entity, 'revenue'),
          verifyScript(web.base, entity, `/${entity.toLowerCase()}`, values[entity]![0], quoteOf(entity, 'revenue')),
        ],
        [
          factRoute(entity, 'employees'),
          verifyScript(web.base, entity, `/${entity.toLowerCase()}`, values[entity]![1], quoteOf(entity, 'employees')),
        ],
      ]),
    );
    const { worker, taskQueue } = await researchWorker(routes);
    const runId = runIdFor('eight');
    const { outcome, board } = await worker.runUntil(async () => {
      const handle = await startRun(taskQueue, {
        runId,
        question: 'Figures',
        entities,
        fields: ['revenue', 'employees'],
        maxWorkers: 8,
      });
      return { outcome: await handle.result(), board: await handle.query(boardQuery) };
    });
    expect(outcome.outcome).toBe('complete');
    const counts = Object.fromEntries(
      ['STRATEGY', 'PENDING', 'VERIFIED', 'SYNTHESIS'].map((t) => [t, ofType(board, t as never).length]),
    );
    expect(counts).toEqual({ STRATEGY: 1, PENDING: 8, VERIFIED: 8, SYNTHESIS: 1 });
    expect(board).toHaveLength(18);
    expect(board.map((entry) => entry.id)).toEqual(board.map((_entry, index) => `e${index + 1}`));
  });

  it('ends incomplete, with what is missing and no SYNTHESIS, when the attempts run out first', async () => {
    const routes = {
      [factRoute('Umbrella', 'revenue')]: verifyScript(
        web.base,
        'Umbrella',
        '/umbrella',
        '7777777',
        quoteOf('Umbrella', 'revenue'),
      ),
      [factRoute('Umbrella', 'employees')]: [
        { tool: 'board_write', args: { status: 'UNVERIFIED', value: '30000', reason: 'only a press rumour' } },
      ],
    };
    const { worker, taskQueue } = await researchWorker(routes);
    const outcome = await worker.runUntil(async () => {
      const handle = await startRun(taskQueue, {
        runId: runIdFor('incomplete'),
        question: 'Umbrella figures',
        entities: ['Umbrella'],
        fields: ['revenue', 'employees'],
        maxAttemptsPerFact: 1,
      });
      return handle.result();
    });
    expect(outcome).toMatchObject({
      outcome: 'incomplete',
      citations: [],
      missing: ['Umbrella / employees: UNVERIFIED'],
    });
    expect(outcome.answer).toBeUndefined();
  });

  it('continues as new with workers running, and the handover board completes', async () => {
    const entities = ['Acme', 'Globex', 'Initech', 'Umbrella'];
    const routes = Object.fromEntries(
      entities.map((entity) => {
        const value = /revenue<\/td><td>USD ([\d,]+)/.exec(
          fixturePages(COMPANIES)[`/${entity.toLowerCase()}`] ?? '',
        )?.[1];
        return [
          factRoute(entity, 'revenue'),
          verifyScript(web.base, entity, `/${entity.toLowerCase()}`, value ?? '', quoteOf(entity, 'revenue')),
        ];
      }),
    );
    const { worker, taskQueue } = await researchWorker(routes);
    const outcome = await worker.runUntil(async () => {
      const handle = await startRun(taskQueue, {
        runId: runIdFor('can'),
        question: 'Revenues',
        entities,
        fields: ['revenue'],
        maxWorkers: 2,
        continueAsNewEvents: 40,
      });
      return handle.result();
    });
    expect(outcome.outcome).toBe('complete');
    expect(outcome.continuedAsNew).toBeGreaterThan(0);
    const counts = ['STRATEGY', 'PENDING', 'VERIFIED', 'SYNTHESIS'].map(
      (type) => ofType(outcome.board, type as never).length,
    );
    expect(counts).toEqual([1, 4, 4, 1]);
  });
});
