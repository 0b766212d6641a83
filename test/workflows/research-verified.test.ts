import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { RoutedScriptedProvider } from '../../src/activities/model/routed';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, rowQuote, verifyScript } from '../../src/cli/demo/research-scripts';
import type { BoardEntry, EntryOf } from '../../src/core/research/board';
import type { ResearchInput, WorkerInput } from '../../src/core/research/run';
import { queryRoute } from '../../src/core/research/search-query';
import { contentText } from '../../src/core/cycle/model';
import { encryptionDataConverter } from '../../src/common/encryption-codec';
import type { ResearchWorkflow } from '../../src/common/workflow-types';
import { researchInvestigationId, researchWorkflowId, researchWorkerId } from '../../src/common/ids';
import { traceQuery } from '../../src/common/messages/cycle';
import {
  boardQuery,
  researchDirectiveSignal,
  researchStatusQuery,
  writeUpdate,
} from '../../src/common/messages/research';
import { testEnvironment, waitFor } from '../helpers/temporal';
import { bundleWorkflows } from '../helpers/worker';
import { researchTestWorker, workerToken } from '../helpers/research';

jest.setTimeout(150_000);

const COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
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

let runs = 0;
const runIdFor = (name: string) => `${name}-${Date.now().toString(36)}-${++runs}`;
const ofType = <T extends BoardEntry['type']>(board: BoardEntry[], type: T) =>
  board.filter((entry): entry is EntryOf<T> => entry.type === type);
const promptOf = (request: { messages: { content: unknown }[] } | undefined) =>
  contentText((request?.messages[0]?.content ?? '') as string);

function start(client: Client, taskQueue: string, input: ResearchInput) {
  return client.workflow.start<ResearchWorkflow>('research', {
    taskQueue,
    workflowId: researchWorkflowId(input.runId),
    args: [input],
  });
}

/** True when any byte array or string in `value` holds `needle`: a history's payloads, however deep. */
function holdsBytes(value: unknown, needle: Buffer): boolean {
  if (value instanceof Uint8Array) return Buffer.from(value).includes(needle);
  if (typeof value === 'string') return value.includes(needle.toString('utf8'));
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some((item) => holdsBytes(item, needle));
}

const claim = (value: string, quote: string, step = 1): ScriptEntry => ({
  tool: 'board_write',
  args: { status: 'VERIFIED', value, source_url: `${web.base}/acme`, step, quote },
});
const fetchAcme = (): ScriptEntry => ({ tool: 'web_fetch', args: { url: `${web.base}/acme` } });

describe('verified means verified (issue 20) on the dev server', () => {
  it('records a wrong value UNVERIFIED: another row of the table, the field label; SYNTHESIS quotes each fact', async () => {
    const routes = {
      // The employee count claimed as the revenue, quoting both rows; then the label "revenue" as the value.
      [factRoute('Acme', 'revenue')]: [fetchAcme(), claim('5,000', 'revenue USD 1,234,567 employees 5,000')],
      [factRoute('Acme', 'revenue', 2)]: [fetchAcme(), claim('revenue', rowQuote('revenue', 'USD 1,234,567'))],
      [factRoute('Acme', 'revenue', 3)]: [fetchAcme(), claim('USD 1,234,567', rowQuote('revenue', 'USD 1,234,567'))],
      [factRoute('Acme', 'employees')]: verifyScript(
        web.base,
        'Acme',
        '/acme',
        '5,000',
        rowQuote('employees', '5,000'),
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('wrong-value');
    const result = await worker.runUntil(async () =>
      (
        await start(env.client, taskQueue, {
          runId,
          question: 'Acme figures',
          entities: ['Acme'],
          fields: ['revenue', 'employees'],
          maxAttemptsPerFact: 3,
        })
      ).result(),
    );
    const { board } = result;
    const unverified = ofType(board, 'UNVERIFIED').filter((entry) => entry.body.entity === 'Acme');
    expect(unverified.map((entry) => [entry.body.claimedValue, entry.body.reason])).toEqual([
      ['5,000', expect.stringMatching(/^\[row\] in the quote, "5,000" is given for the field employees, not Acme/)],
      ['revenue', expect.stringMatching(/^\[label\] the value "revenue" is a name of the run's fields/)],
    ]);
    const verified = ofType(board, 'VERIFIED');
    expect(verified.map((entry) => [entry.body.field, entry.body.value, entry.body.quote])).toEqual([
      ['employees', '5,000', 'employees 5,000'],
      ['revenue', 'USD 1,234,567', 'revenue USD 1,234,567'],
    ]);
    expect(result.outcome).toBe('complete');
    for (const quote of ['revenue USD 1,234,567', 'employees 5,000']) {
      expect(result.answer).toContain(`"${quote}" (${web.base}/acme)`);
    }
  });

  it('answers with every fact quoted and its URL', async () => {
    const routes = {
      [factRoute('Globex', 'revenue')]: verifyScript(web.base, 'Globex', '/globex', '890,000', 'revenue USD 890,000'),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('quoted');
    const input = { runId, question: 'Globex revenue', entities: ['Globex'], fields: ['revenue'] };
    const result = await worker.runUntil(async () => (await start(env.client, taskQueue, input)).result());
    expect(result.outcome).toBe('complete');
    const [id] = result.citations;
    expect(result.answer).toBe(
      `Globex revenue\n- Globex revenue: 890,000 [${id}] "revenue USD 890,000" (${web.base}/globex)`,
    );
  });

  it('refuses FAILED_URL for a URL the worker never saw fail: nothing is tombstoned, the fact is verified', async () => {
    const acme = `${web.base}/acme`;
    const routes = {
      [factRoute('Acme', 'revenue')]: [
        { tool: 'board_write', args: { status: 'FAILED_URL', url: acme, reason: 'blocked' } },
        fetchAcme(),
        { tool: 'board_write', args: { status: 'FAILED_URL', url: acme, reason: 'blocked' } },
        claim('1,234,567', rowQuote('revenue', 'USD 1,234,567'), 2),
      ],
    };
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('unfetched');
    const { result, board } = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Acme revenue',
        entities: ['Acme'],
        fields: ['revenue'],
      });
      return { result: await handle.result(), board: await handle.query(boardQuery) };
    });
    expect(result.outcome).toBe('complete');
    expect(ofType(board, 'FAILED_URL')).toEqual([]);
    expect(ofType(board, 'TOMBSTONE')).toEqual([]);
    const requests = model.requestsFor(factRoute('Acme', 'revenue'));
    expect(promptOf(requests[1])).toContain(`FAILED_URL is only for a URL your own web_fetch saw fail`);
    expect(promptOf(requests[3])).toContain(`${acme} was not fetched in this investigation, or its fetch succeeded`);
  });

  it("forwards a directive to a running worker's cycle, seen at its next prompt; later facts start under it", async () => {
    const route = factRoute('Acme', 'revenue');
    const routes = {
      [route]: verifyScript(web.base, 'Acme', '/acme', '1,234,567', rowQuote('revenue', 'USD 1,234,567'), 4000),
      [factRoute('Acme', 'employees')]: verifyScript(
        web.base,
        'Acme',
        '/acme',
        '5,000',
        rowQuote('employees', '5,000'),
      ),
    };
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('directive');
    const text = 'prefer the audited annual report';
    const result = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Acme figures',
        entities: ['Acme'],
        fields: ['revenue', 'employees'],
        maxWorkers: 1,
      });
      // The investigation is at its first model call (scripted to take 4 s) when the directive comes.
      await waitFor(async () => model.requestsFor(route).length === 1);
      await handle.signal(researchDirectiveSignal, { text, by: 'alice' });
      return handle.result();
    });
    expect(result.outcome).toBe('complete');
    const running = model.requestsFor(route);
    expect(promptOf(running[0])).not.toContain(text);
    expect(promptOf(running[1])).toContain(`USER DIRECTIVE: ${text}`);
    const cycle = env.client.workflow.getHandle(researchInvestigationId(researchWorkerId(runId, 1)));
    expect((await cycle.result()).directives).toEqual([{ text, iteration: 2 }]);
    // The fact started after the directive was read: its brief's goal carries the revised STRATEGY.
    const later = model.requestsFor(factRoute('Acme', 'employees'));
    expect(promptOf(later[0])).toContain(`Directives:\n- ${text}`);
  });

  it("refuses a forged write: no token, or another worker's; the board is unchanged and the real worker finishes", async () => {
    const routes = {
      [factRoute('Acme', 'revenue')]: verifyScript(
        web.base,
        'Acme',
        '/acme',
        '1234567',
        rowQuote('revenue', 'USD 1,234,567'),
        4000,
      ),
      [factRoute('Acme', 'employees')]: verifyScript(
        web.base,
        'Acme',
        '/acme',
        '5000',
        rowQuote('employees', '5,000'),
        4000,
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('forged');
    const [w1, w2] = [researchWorkerId(runId, 1), researchWorkerId(runId, 2)];
    await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Acme figures',
        entities: ['Acme'],
        fields: ['revenue', 'employees'],
      });
      await waitFor(async () => (await handle.query(researchStatusQuery)).facts.every((f) => f.state === 'PENDING'));
      const before = await handle.query(boardQuery);
      const w2Token = await workerToken(env.client, w2);
      expect(w2Token).toMatch(/^[0-9a-f-]{36}$/);
      const forged = { type: 'UNVERIFIED', body: { entity: 'Acme', field: 'revenue', reason: 'forged: gave up' } };
      for (const [token, says] of [
        [undefined, 'presented no capability token'],
        [w2Token, 'presented a token that is not its own'],
      ] as const) {
        const write = handle.executeUpdate(writeUpdate, {
          args: [{ author: { role: 'worker', id: w1 }, draft: forged, ...(token && { token }) }],
        });
        await expect(write).rejects.toThrow();
        await write.catch((error: Error) => expect(String(error.cause)).toContain(`[token] the write ${says}`));
      }
      expect(await handle.query(boardQuery)).toEqual(before);
      const result = await handle.result();
      expect(result.outcome).toBe('complete');
      expect(ofType(result.board, 'UNVERIFIED')).toEqual([]);
      // The token is in no answer a person reads: status, board, result, the worker's result, its cycle's trace.
      const w1Token = await workerToken(env.client, w1);
      const cycle = env.client.workflow.getHandle(researchInvestigationId(w1));
      const shown = [
        await handle.query(researchStatusQuery),
        result,
        await env.client.workflow.getHandle(w1).result(),
        await cycle.query(traceQuery),
        await cycle.result(),
        (await handle.describe()).raw,
        await handle.query('__temporal_workflow_metadata'),
      ];
      expect(JSON.stringify(shown)).not.toContain(w1Token);
    });
  });

  it('writes a new search query on the re-delegated entry after a tombstone, and the new worker searches with it', async () => {
    const dead = `${web.base}/dead`;
    const host = new URL(web.base).host;
    const fresh = `Globex revenue filings -site:${host}`;
    const routes = {
      [factRoute('Globex', 'revenue')]: [
        { tool: 'web_search', args: { query: 'Globex revenue filings' } },
        { tool: 'web_fetch', args: { url: dead } },
        { tool: 'board_write', args: { status: 'FAILED_URL', url: dead, reason: 'gone' } },
      ],
      [factRoute('Globex', 'revenue', 2)]: [
        { tool: 'web_search', args: { query: fresh } },
        ...verifyScript(web.base, 'Globex', '/globex', '890,000', 'revenue USD 890,000').slice(1),
      ],
    };
    const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes);
    const runId = runIdFor('new-query');
    const { result, board } = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Globex revenue',
        entities: ['Globex'],
        fields: ['revenue'],
      });
      return { result: await handle.result(), board: await handle.query(boardQuery) };
    });
    expect(result.outcome).toBe('complete');
    const [failed] = ofType(board, 'FAILED_URL');
    expect(failed?.body).toMatchObject({
      failureReason: 'web_fetch failed: HTTP 410 Gone; the worker says: gone',
      searchQuery: 'Globex revenue filings',
    });
    const redelegated = ofType(board, 'PENDING').filter((entry) => entry.author.role === 'supervisor');
    expect(redelegated.map((entry) => entry.body.searchQuery)).toEqual([fresh]);
    const brief = promptOf(model.requestsFor(factRoute('Globex', 'revenue', 2))[0]);
    expect(brief).toContain(`Search query (search with it first): ${fresh}`);
    expect(web.requests).toContain(`/search?q=${fresh}`);
  });

  it("asks the supervisor's own model for the new query when it has one", async () => {
    const dead = `${web.base}/dead`;
    const host = new URL(web.base).host;
    const routes = {
      [factRoute('Globex', 'revenue')]: [
        { tool: 'web_fetch', args: { url: dead } },
        { tool: 'board_write', args: { status: 'FAILED_URL', url: dead } },
      ],
      [factRoute('Globex', 'revenue', 2)]: verifyScript(
        web.base,
        'Globex',
        '/globex',
        '890,000',
        'revenue USD 890,000',
      ),
    };
    const supervisor = new RoutedScriptedProvider(
      { [queryRoute('Globex', 'revenue')]: [{ text: '"Globex annual report 2024 revenue"' }] },
      'supervisor',
    );
    const providers = { 'scripted:supervisor': supervisor };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes, { providers });
    const runId = runIdFor('model-query');
    const board = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Globex revenue',
        entities: ['Globex'],
        fields: ['revenue'],
        model: 'scripted:supervisor',
      });
      expect((await handle.result()).outcome).toBe('complete');
      return handle.query(boardQuery);
    });
    const asked = supervisor.requestsFor(queryRoute('Globex', 'revenue'));
    expect(promptOf(asked[0])).toContain('The last search was: Globex revenue');
    const redelegated = ofType(board, 'PENDING').filter((entry) => entry.author.role === 'supervisor');
    expect(redelegated.map((entry) => entry.body.searchQuery)).toEqual([
      `Globex annual report 2024 revenue -site:${host}`,
    ]);
  });

  it('keeps tokens ciphertext in history with the payload codec on', async () => {
    const dataConverter = encryptionDataConverter([{ id: 'k1', key: new Uint8Array(randomBytes(32)) }]);
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter });
    const routes = {
      [factRoute('Globex', 'employees')]: verifyScript(web.base, 'Globex', '/globex', '1,200', 'employees 1,200'),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes, { dataConverter, client });
    const runId = runIdFor('codec');
    const input = { runId, question: 'Globex staff', entities: ['Globex'], fields: ['employees'] };
    const result = await worker.runUntil(async () => (await start(client, taskQueue, input)).result());
    expect(result.outcome).toBe('complete');
    const w1 = researchWorkerId(runId, 1);
    const history = await client.workflow.getHandle(w1).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] as Payload;
    const [decoded] = await (dataConverter.payloadCodecs ?? [])[0]!.decode([payload]);
    const { token } = JSON.parse(Buffer.from(decoded?.data as Uint8Array).toString('utf8')) as WorkerInput;
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    // Raw history of the worker, its cycle and the supervisor (where the writes land): the token never in clear.
    for (const id of [w1, researchInvestigationId(w1), researchWorkflowId(runId)]) {
      const raw = await env.client.workflow.getHandle(id).fetchHistory();
      expect(holdsBytes(raw, Buffer.from(token as string))).toBe(false);
    }
  });
});
