import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { fixturePages } from '../../src/cli/demo/fixture-web';
import { factRoute } from '../../src/cli/demo/research-scripts';
import type { BoardEntry, EntryOf } from '../../src/core/research/board';
import type { ResearchResult } from '../../src/core/research/run';
import { researchWorkflowId, researchWorkerId } from '../../src/common/ids';
import { boardQuery, researchStatusQuery } from '../../src/common/messages/research';
import { WorkerProcess } from '../faults/processes';
import { ARTIFACTS } from '../helpers/chromium';
import { type RedisServerHandle, startRedisServer } from '../helpers/redis-server';
import { clientEndReleased, socketOwner } from '../helpers/socket-owner';
import { testEnvironment, testServerAddress, uniqueTaskQueue } from '../helpers/temporal';
import { workflowBundleCode } from '../helpers/workflow-bundle';

// The worker processes run the project's worker from dist/ (test/faults/fault-worker.js): `npm run build` first, as
// `npm test` does.
jest.setTimeout(150_000);
const BUILT_WORKER = path.resolve(__dirname, '..', '..', 'dist', 'src', 'workers', 'create-worker.js');

const COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
};
/** The page of the fact under test (Acme / revenue): no other worker fetches it. */
const EVIDENCE_PAGE = '/acme-annual';
/** The search the worker under test repeats until the kill; the fixture answers it with this once the kill is done. */
const PROBE = 'acme revenue confirm';
const GO_AHEAD = 'GO-AHEAD-after-the-kill';

/**
 * Every worker's model, keyed by its fact and by what its conversation already holds (`match`), never by a position:
 * whichever process answers a turn answers it as the other would. Acme / revenue fetches its page, then searches
 * PROBE until the fixture says go ahead, then claims VERIFIED citing step 1 (the fetch); the other facts fetch and
 * claim.
 */
function script(base: string): string {
  const url = (page: string) => `${base}${page}`;
  const verify = (value: string, page: string, quote: string) => ({
    tool: 'board_write',
    args: { status: 'VERIFIED', value, source_url: url(page), step: 1, quote },
  });
  const probed = factRoute('Acme', 'revenue');
  const entries = [
    { match: [probed, GO_AHEAD], ...verify('1,234,567', EVIDENCE_PAGE, 'revenue USD 1,234,567') },
    { match: [probed, '[TOOL] web_fetch('], tool: 'web_search', args: { query: PROBE } },
    { match: [probed], tool: 'web_fetch', args: { url: url(EVIDENCE_PAGE) } },
    ...(
      [
        ['Acme', 'employees', '5000', '/acme', 'employees 5,000'],
        ['Globex', 'revenue', '890,000', '/globex', 'revenue USD 890,000'],
        ['Globex', 'employees', '1200', '/globex', 'employees 1,200'],
      ] as const
    ).flatMap(([entity, field, value, page, quote]) => [
      { match: [factRoute(entity, field), '[TOOL] web_fetch('], ...verify(value, page, quote) },
      { match: [factRoute(entity, field)], tool: 'web_fetch', args: { url: url(page) } },
    ]),
  ];
  return `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
}

interface Request {
  path: string;
  pid: number | undefined;
  at: number;
  /** The sender no longer held its end of the connection when the request was read: it died after sending. */
  senderGone?: true;
}

let env: TestWorkflowEnvironment;
let redis: RedisServerHandle;
let server: http.Server;
let base = '';
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-research-kill-'));
const workers: WorkerProcess[] = [];
const requests: Request[] = [];
/** Who opened each connection: a request read after its sender died can only be named from this. */
const connectionOwners = new WeakMap<object, number | undefined>();
/** The process that fetched EVIDENCE_PAGE, killed when it next runs the probe search. */
let fetcher: number | undefined;
/** When the SIGKILL was sent and when the process was gone: requests in between may still be its own. */
let kill: { pid: number; at: number; goneAt?: number } | undefined;

/** The worker process holding the client end of a connection, by its client port. */
function holderOf(remotePort: number): number | undefined {
  return socketOwner(
    remotePort,
    workers.map((worker) => worker.pid),
  );
}

/**
 * After the kill, a client end no process holds is the killed process's: it sent and then died, and the server
 * accepted or read only after (under load). A live worker holds its end until the answer comes.
 */
function killedSender(remotePort: number): number | undefined {
  return kill && clientEndReleased(remotePort) ? kill.pid : undefined;
}

/** The fixture web, which also names the worker process behind each request and kills at the probe. */
async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const pages: Record<string, string> = fixturePages(COMPANIES);
  pages[EVIDENCE_PAGE] = pages['/acme'] as string;
  const url = new URL(request.url ?? '/', 'http://fixture');
  const query = url.searchParams.get('q') ?? '';
  const port = request.socket.remotePort ?? 0;
  const sender = holderOf(port);
  const pid = sender ?? connectionOwners.get(request.socket) ?? killedSender(port);
  requests.push({
    path: url.pathname === '/search' ? `/search?q=${query}` : url.pathname,
    pid,
    at: Date.now(),
    ...(sender === undefined && pid !== undefined && { senderGone: true as const }),
  });
  if (url.pathname === '/search') {
    if (query === PROBE && !kill && pid !== undefined && pid === fetcher) {
      // The worker under test is inside a web_search activity on the process that holds its page's fetch.
      kill = { pid, at: Date.now() };
      await workers.find((worker) => worker.pid === pid)?.killGroup();
      kill.goneAt = Date.now();
      response.destroy();
      return;
    }
    const title = query === PROBE ? (kill ? GO_AHEAD : 'nothing new yet') : 'directory';
    const results = [{ url: `${base}${EVIDENCE_PAGE}`, title, content: title }];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    return;
  }
  const body = pages[url.pathname];
  if (body === undefined) {
    response.writeHead(410).end('gone');
    return;
  }
  if (url.pathname === EVIDENCE_PAGE) fetcher ??= pid;
  response.writeHead(200, { 'content-type': 'text/html' }).end(body);
}

beforeAll(async () => {
  if (!fs.existsSync(BUILT_WORKER)) throw new Error(`${BUILT_WORKER} is missing: run npm run build first`);
  env = await testEnvironment();
  redis = await startRedisServer();
  server = http.createServer((request, response) => void handle(request, response));
  server.on('connection', (socket) => {
    const port = socket.remotePort ?? 0;
    connectionOwners.set(socket, holderOf(port) ?? killedSender(port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  fs.writeFileSync(path.join(directory, 'model.jsonl'), script(base));
  fs.writeFileSync(path.join(directory, 'workflows.js'), await workflowBundleCode());
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await redis?.stop();
  await env?.teardown();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** A worker process as `scratchpad worker` runs it: observations on the shared Redis, the fixture web allowed. */
function startWorker(name: string, taskQueue: string): WorkerProcess {
  const home = path.join(directory, name);
  const worker = WorkerProcess.start(
    {
      TEMPORAL_ADDRESS: testServerAddress(),
      SCRATCHPAD_TASK_QUEUE: taskQueue,
      SCRATCHPAD_MODEL: `scripted:${path.join(directory, 'model.jsonl')}`,
      SCRATCHPAD_HOME: home,
      SCRATCHPAD_SANDBOX: path.join(home, 'sandbox'),
      SCRATCHPAD_OBSERVATIONS: redis.url,
      SCRATCHPAD_SEARCH_URL: `${base}/search`,
      SCRATCHPAD_FETCH_ALLOW: '127.0.0.1',
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: '127.0.0.1/32',
      SCRATCHPAD_FETCH_PORTS: new URL(base).port,
      FAULT_WORKFLOW_BUNDLE: path.join(directory, 'workflows.js'),
    },
    { group: true },
  );
  workers.push(worker);
  return worker;
}

const ofType = <T extends BoardEntry['type']>(board: BoardEntry[], type: T) =>
  board.filter((entry): entry is EntryOf<T> => entry.type === type);

describe('research run across two worker processes', () => {
  it('completes, losing and doubling nothing, when the process in the middle of an investigation is SIGKILLed', async () => {
    const taskQueue = uniqueTaskQueue('research-kill');
    await Promise.all([startWorker('a', taskQueue).ready, startWorker('b', taskQueue).ready]);
    const runId = `kill-${process.pid}-${Date.now().toString(36)}`;
    const handle = await env.client.workflow.start('research', {
      taskQueue,
      workflowId: researchWorkflowId(runId),
      args: [
        {
          runId,
          question: 'Revenue and employees of Acme and Globex',
          entities: ['Acme', 'Globex'],
          fields: ['revenue', 'employees'],
          maxWorkers: 4,
          maxAttemptsPerFact: 1,
          // Room for the probe search to land on the fetching process (the most a run allows): each try is one of two
          // processes, and under load one can take many in a row.
          maxWorkerTurns: 50,
        },
      ],
    });
    const outcome: ResearchResult = await handle.result();
    const endedAt = Date.now();
    const board = await handle.query(boardQuery);
    const status = await handle.query(researchStatusQuery);

    // Without a kill, what the fixture saw says why: who fetched the evidence page and where the probe searches ran.
    const pids = workers.map((worker) => worker.pid);
    expect({ kill, fetcher, pids, requests: kill ? [] : requests }).toMatchObject({ kill: expect.anything() });
    const killedAt = kill?.at ?? 0;
    const survivor = workers.find((worker) => worker.pid !== kill?.pid) as WorkerProcess;
    expect(survivor.alive).toBe(true);
    expect(workers.find((worker) => worker.pid === kill?.pid)?.alive).toBe(false);
    // The run ends complete: SYNTHESIS cites exactly the VERIFIED entries; every fact is VERIFIED.
    // What is missing, if anything, shows in the failure message, with the reason a fact ended unverified.
    const reasons = ofType(board, 'UNVERIFIED').map(({ body }) => `${body.entity} / ${body.field}: ${body.reason}`);
    expect([outcome.outcome, ...outcome.missing, ...reasons]).toEqual(['complete']);
    const verified = ofType(board, 'VERIFIED');
    expect(outcome.citations.sort()).toEqual(verified.map((entry) => entry.id).sort());
    expect(ofType(board, 'SYNTHESIS')[0]?.body.citations.sort()).toEqual(outcome.citations);
    expect(status.facts.map((fact) => fact.state)).toEqual(['VERIFIED', 'VERIFIED', 'VERIFIED', 'VERIFIED']);
    // Nothing lost, nothing doubled: one STRATEGY, one claim and one VERIFIED per fact, one SYNTHESIS, in order.
    const counts = Object.fromEntries(
      ['STRATEGY', 'PENDING', 'VERIFIED', 'UNVERIFIED', 'FAILED_URL', 'SYNTHESIS'].map((type) => [
        type,
        ofType(board, type as BoardEntry['type']).length,
      ]),
    );
    expect(counts).toEqual({ STRATEGY: 1, PENDING: 4, VERIFIED: 4, UNVERIFIED: 0, FAILED_URL: 0, SYNTHESIS: 1 });
    expect(board.map((entry) => entry.id)).toEqual(board.map((_entry, index) => `e${index + 1}`));
    expect(status.workersStarted).toBe(4);
    // The fact under test was verified from the dead process's fetch (step 1, read back from Redis by the
    // survivor's evidence check), which was never fetched again; the survivor ran the retried search.
    expect(verified.find((entry) => entry.body.entity === 'Acme' && entry.body.field === 'revenue')?.body).toEqual({
      entity: 'Acme',
      field: 'revenue',
      value: '1,234,567',
      sourceUrl: `${base}${EVIDENCE_PAGE}`,
      retrievedBy: researchWorkerId(runId, 1),
      evidence: { step: 1 },
      quote: 'revenue USD 1,234,567',
    });
    expect(requests.filter((request) => request.path === EVIDENCE_PAGE).map((request) => request.pid)).toEqual([
      kill?.pid,
    ]);
    // Under load the server can read a request the killed process sent just before the signal only after it is gone.
    const after = requests.filter((request) => request.at > (kill?.goneAt ?? Infinity));
    const sentBeforeTheKill = (request: Request) => request.senderGone && request.pid === kill?.pid;
    expect(after.filter((request) => request.pid !== survivor.pid && !sentBeforeTheKill(request))).toEqual([]);
    const retried = after.find((request) => request.path === `/search?q=${PROBE}`);
    expect(retried).toBeDefined();

    const figures =
      `research run, 2 worker processes, SIGKILL of the one running the probe search:\n` +
      `  kill → retried search on the survivor: ${(((retried?.at ?? 0) - killedAt) / 1000).toFixed(1)} s\n` +
      `  kill → run complete: ${((endedAt - killedAt) / 1000).toFixed(1)} s\n` +
      `  probe searches before the kill: ${requests.filter((r) => r.path === `/search?q=${PROBE}` && r.at <= killedAt).length}\n`;
    process.stdout.write(figures);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'research-kill.txt'), figures);
  });
});
