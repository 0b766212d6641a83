import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import Redis from 'ioredis';
import { mirrorKey } from '../../src/activities/research/mirror';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute } from '../../src/cli/demo/research-scripts';
import type { BoardEntry } from '../../src/core/research/board';
import type { ResearchResult } from '../../src/core/research/run';
import { researchWorkflowId } from '../../src/common/ids';
import { researchStatusQuery } from '../../src/common/messages/research';
import { type DevServer, startDevServer } from '../../src/dev-server/dev-server';
import { type RedisServerHandle, startRedisServer } from '../helpers/redis-server';
import { uniqueTaskQueue } from '../helpers/temporal';
import { workflowBundleCode } from '../helpers/workflow-bundle';
import { WorkerProcess } from './processes';

// The worker process runs the project's worker from dist/ (fault-worker.js): build it first (npm run build).
const BINARY = process.env.REDIS_SERVER_BINARY ?? 'redis-server';
const COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
};
const FACTS = [
  ['Acme', 'revenue', '1,234,567', '/acme'],
  ['Acme', 'employees', '5,000', '/acme'],
  ['Globex', 'revenue', '890,000', '/globex'],
  ['Globex', 'employees', '1,200', '/globex'],
] as const;
/** Each worker's search takes this long: the run lasts long enough for Redis to die under it. */
const SEARCH_DELAY_MS = 5000;

/** Every worker's model, keyed by its fact and by what its conversation holds: search (slowly), fetch, claim. */
function script(base: string): string {
  const entries = FACTS.flatMap(([entity, field, value, page]) => {
    const route = factRoute(entity, field);
    const url = `${base}${page}`;
    return [
      {
        match: [route, '[TOOL] web_fetch('],
        tool: 'board_write',
        // The page's row: the field, then the value as shown (revenues in USD).
        args: {
          status: 'VERIFIED',
          value,
          source_url: url,
          step: 2,
          quote: `${field} ${field === 'revenue' ? 'USD ' : ''}${value}`,
        },
      },
      { match: [route, '[TOOL] web_search('], tool: 'web_fetch', args: { url } },
      { match: [route], tool: 'web_search', args: { query: `${entity} ${field}` }, delayMs: SEARCH_DELAY_MS },
    ];
  });
  return `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-research-redis-'));
const redisDirectory = path.join(directory, 'redis');
let server: DevServer;
let connection: Connection;
let client: Client;
let web: FixtureWeb;
let redis: RedisServerHandle;
const workers: WorkerProcess[] = [];
const taskQueue = uniqueTaskQueue('faults-research-redis');

beforeAll(async () => {
  fs.mkdirSync(redisDirectory);
  server = await startDevServer({ dbFile: path.join(directory, 'temporal.db'), ui: false, log: () => undefined });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  web = await serveFixtureWeb(fixturePages(COMPANIES));
  fs.writeFileSync(path.join(directory, 'model.jsonl'), script(web.base));
  fs.writeFileSync(path.join(directory, 'workflows.js'), await workflowBundleCode());
  redis = await startRedisServer(BINARY, { directory: redisDirectory, persistent: true });
  const worker = WorkerProcess.start({
    TEMPORAL_ADDRESS: server.address,
    SCRATCHPAD_TASK_QUEUE: taskQueue,
    SCRATCHPAD_MODEL: `scripted:${path.join(directory, 'model.jsonl')}`,
    SCRATCHPAD_HOME: directory,
    SCRATCHPAD_SANDBOX: path.join(directory, 'sandbox'),
    // The observation store is not what dies here: only the board's mirror is on Redis.
    SCRATCHPAD_OBSERVATIONS: path.join(directory, 'observations.db'),
    SCRATCHPAD_SEARCH_URL: web.searchUrl,
    SCRATCHPAD_FETCH_ALLOW: '127.0.0.1',
    SCRATCHPAD_FETCH_ALLOW_PRIVATE: '127.0.0.1/32',
    SCRATCHPAD_FETCH_PORTS: new URL(web.base).port,
    FAULT_WORKFLOW_BUNDLE: path.join(directory, 'workflows.js'),
  });
  workers.push(worker);
  await worker.ready;
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await connection?.close();
  await web?.close();
  await redis?.stop();
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** Starts a mirrored run, SIGKILLs redis-server once the mirror holds its first entry, runs `afterKill`, waits. */
async function runThroughKill(name: string, afterKill: () => Promise<void>) {
  const runId = `${name}-${Date.now().toString(36)}`;
  const handle = await client.workflow.start('research', {
    taskQueue,
    workflowId: researchWorkflowId(runId),
    args: [
      {
        runId,
        question: 'Revenue and employees of Acme and Globex',
        entities: ['Acme', 'Globex'],
        fields: ['revenue', 'employees'],
        maxAttemptsPerFact: 1,
        mirror: redis.url,
      },
    ],
  });
  const watcher = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const deadline = Date.now() + 60_000;
  while ((await watcher.llen(mirrorKey(runId))) === 0) {
    if (Date.now() > deadline) throw new Error('the mirror never held an entry');
    await sleep(50);
  }
  watcher.disconnect();
  const killedAt = Date.now();
  process.kill(redis.pid, 'SIGKILL');
  await redis.stop();
  await afterKill();
  const result: ResearchResult = await handle.result();
  const endedAt = Date.now();
  const status = await handle.query(researchStatusQuery);
  process.stdout.write(
    `${name}: SIGKILL of redis-server → run ended in ${((endedAt - killedAt) / 1000).toFixed(1)} s; mirror ${JSON.stringify(result.mirror)}\n`,
  );
  return { runId, result, status };
}

describe('redis-server (the research board mirror) killed with SIGKILL during a run', () => {
  it('restarted: the run completes, and the mirror catches up with every entry once', async () => {
    const { runId, result, status } = await runThroughKill('redis-back', async () => {
      await sleep(3000);
      redis = await startRedisServer(BINARY, { directory: redisDirectory, port: redis.port, persistent: true });
    });

    // Missing facts, if any, show in the failure message: the outage must change nothing but the mirror.
    expect([result.outcome, ...result.missing]).toEqual(['complete']);
    expect(result.mirror).toMatchObject({ state: 'caught up', pending: 0, mirrored: result.board.length });
    expect(status.mirror?.state).toBe('caught up');
    const reader = new Redis(redis.url);
    try {
      const mirrored = (await reader.lrange(mirrorKey(runId), 0, -1)).map((line) => JSON.parse(line) as BoardEntry);
      expect(mirrored).toEqual(result.board);
      expect(await reader.ttl(mirrorKey(runId))).toBeGreaterThan(0);
    } finally {
      reader.disconnect();
    }
  }, 180_000);

  it('left dead: the run completes in a bounded time, its status saying the mirror gave up', async () => {
    const { result, status } = await runThroughKill('redis-gone', async () => undefined);

    expect([result.outcome, ...result.missing]).toEqual(['complete']);
    expect(result.mirror?.state).toBe('gave up');
    expect(status.notes.join('\n')).toMatch(/mirror gave up after \d+ attempts: .*; \d+ entries not mirrored/);
    expect(workers.every((worker) => worker.alive)).toBe(true);
  }, 180_000);
});
