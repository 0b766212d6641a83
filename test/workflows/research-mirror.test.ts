import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import Redis from 'ioredis';
import { mirrorEntries, mirrorKey } from '../../src/activities/research/mirror';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, rowQuote, verifyScript } from '../../src/cli/demo/research-scripts';
import { startDirectiveBridge } from '../../src/clients/directive-bridge';
import type { BoardEntry } from '../../src/core/research/board';
import { researchWorkflowId } from '../../src/common/ids';
import { boardQuery, researchStatusQuery } from '../../src/common/messages/research';
import { PAYLOAD_BUDGET_BYTES } from '../../src/core/payload';
import { DIRECTIVE_LIMITS } from '../../src/core/research/limits';
import type { ResearchResult } from '../../src/core/research/run';
import { temporal } from '@temporalio/proto';
import { freePort } from '../../src/dev-server/free-port';
import { type RedisServerHandle, testRedisServer } from '../helpers/redis';
import { startRedisServer } from '../helpers/redis-server';
import { testEnvironment, waitFor } from '../helpers/temporal';
import { bundleWorkflows } from '../helpers/worker';
import { researchTestWorker } from '../helpers/research';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let web: FixtureWeb;
let redisServer: RedisServerHandle;
let redis: Redis;

beforeAll(async () => {
  env = await testEnvironment();
  bundle = await bundleWorkflows();
  web = await serveFixtureWeb(fixturePages({ Hooli: { revenue: 'USD 3,000,000', employees: '640' } }));
  redisServer = await testRedisServer();
  redis = new Redis(redisServer.url);
});

afterAll(async () => {
  await redis?.quit();
  await redisServer?.stop();
  await web?.close();
  await env?.teardown();
});

describe('research board Redis mirror', () => {
  it('holds the same entries in the same order, a TTL after the run, and passes directives published on Redis', async () => {
    const routes = {
      [factRoute('Hooli', 'revenue')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '3,000,000',
        rowQuote('revenue', 'USD 3,000,000'),
        3000,
      ),
      [factRoute('Hooli', 'employees')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '640',
        rowQuote('employees', '640'),
        3000,
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = `mirror-${Date.now().toString(36)}`;
    const bridge = await startDirectiveBridge(redisServer.url, env.client);
    try {
      const board = await worker.runUntil(async () => {
        const handle = await env.client.workflow.start('research', {
          taskQueue,
          workflowId: researchWorkflowId(runId),
          args: [
            {
              runId,
              question: 'Hooli',
              entities: ['Hooli'],
              fields: ['revenue', 'employees'],
              mirror: redisServer.url,
            },
          ],
        });
        await waitFor(async () =>
          (await handle.query(researchStatusQuery)).facts.every((fact) => fact.state === 'PENDING'),
        );
        await redis.publish(
          `scratchpad:${runId}:directives`,
          JSON.stringify({ text: 'cite annual reports', by: 'ops' }),
        );
        await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'USER_DIRECTIVE'));
        expect((await handle.result()).outcome).toBe('complete');
        return handle.query(boardQuery);
      });
      expect(board.find((entry) => entry.type === 'USER_DIRECTIVE')).toMatchObject({
        author: { role: 'user', id: 'redis:ops' },
        body: { text: 'cite annual reports' },
      });
      expect(board.filter((entry) => entry.type === 'STRATEGY')).toHaveLength(2);
      const mirrored = (await redis.lrange(mirrorKey(runId), 0, -1)).map((line) => JSON.parse(line) as BoardEntry);
      expect(mirrored).toEqual(board);
      const ttl = await redis.ttl(mirrorKey(runId));
      expect(ttl).toBeGreaterThan(0);

      // A retried mirror activity pushes nothing twice.
      await mirrorEntries({ url: redisServer.url, runId, entries: board, final: true });
      expect(await redis.llen(mirrorKey(runId))).toBe(board.length);
    } finally {
      await bridge.close();
    }
  });

  it('forwards one publish as one directive with two bridges, and a flood of publishes leaves the run small', async () => {
    const routes = {
      [factRoute('Hooli', 'revenue')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '3,000,000',
        rowQuote('revenue', 'USD 3,000,000'),
        6000,
      ),
      [factRoute('Hooli', 'employees')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '640',
        rowQuote('employees', '640'),
        6000,
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = `flood-${Date.now().toString(36)}`;
    const channel = `scratchpad:${runId}:directives`;
    const bridges = [
      await startDirectiveBridge(redisServer.url, env.client),
      await startDirectiveBridge(redisServer.url, env.client),
    ];
    try {
      const { result, history } = await worker.runUntil(async () => {
        const handle = await env.client.workflow.start('research', {
          taskQueue,
          workflowId: researchWorkflowId(runId),
          args: [
            {
              runId,
              question: 'Hooli',
              entities: ['Hooli'],
              fields: ['revenue', 'employees'],
              mirror: redisServer.url,
            },
          ],
        });
        await waitFor(async () => (await handle.query(boardQuery)).some((entry) => entry.type === 'STRATEGY'));
        await redis.publish(channel, 'prefer annual reports');
        await redis.publish(channel, JSON.stringify({ text: 'cite the filing', by: 'ops', id: 'ops-1' }));
        await redis.publish(channel, JSON.stringify({ text: 'cite the filing', by: 'ops', id: 'ops-1' }));
        await waitFor(
          async () => (await handle.query(boardQuery)).filter((e) => e.type === 'USER_DIRECTIVE').length === 2,
        );
        for (let index = 0; index < 60; index++) {
          await redis.publish(channel, `flood ${index} `.padEnd(DIRECTIVE_LIMITS.text, 'f'));
        }
        await waitFor(async () => bridges[0]!.dropped + bridges[1]!.dropped > 0);
        expect((await handle.query(boardQuery)).length).toBeGreaterThan(0);
        const outcome: ResearchResult = await handle.result();
        return { result: outcome, history: await handle.fetchHistory() };
      });

      const directives = result.board.filter((entry) => entry.type === 'USER_DIRECTIVE');
      // Two bridges forward concurrently: the first two land in either order.
      expect(
        directives
          .map((entry) => entry.body.text)
          .slice(0, 2)
          .sort(),
      ).toEqual(['cite the filing', 'prefer annual reports']);
      // The bridges forward at most the rate between them, and each message once.
      expect(directives.length).toBeLessThanOrEqual(DIRECTIVE_LIMITS.perMinute);
      expect(bridges[0]!.forwarded + bridges[1]!.forwarded).toBe(directives.length);
      expect(result.outcome).toBe('complete');
      const sizes = (history.events ?? []).map(
        (event) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length,
      );
      expect(Math.max(...sizes)).toBeLessThan(PAYLOAD_BUDGET_BYTES);
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThan(PAYLOAD_BUDGET_BYTES);
      const mirrored = (await redis.lrange(mirrorKey(runId), 0, -1)).map((line) => JSON.parse(line) as BoardEntry);
      expect(mirrored).toEqual(result.board);
    } finally {
      await Promise.all(bridges.map((bridge) => bridge.close()));
    }
  });

  it('completes when redis-server is SIGKILLed mid-run, the status saying the mirror gave up', async () => {
    const doomed = await testRedisServer();
    const routes = {
      [factRoute('Hooli', 'revenue')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '3,000,000',
        rowQuote('revenue', 'USD 3,000,000'),
        3000,
      ),
      [factRoute('Hooli', 'employees')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '640',
        rowQuote('employees', '640'),
        3000,
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = `redis-down-${Date.now().toString(36)}`;
    const watcher = new Redis(doomed.url);
    try {
      const { result, status } = await worker.runUntil(async () => {
        const handle = await env.client.workflow.start('research', {
          taskQueue,
          workflowId: researchWorkflowId(runId),
          args: [
            { runId, question: 'Hooli', entities: ['Hooli'], fields: ['revenue', 'employees'], mirror: doomed.url },
          ],
        });
        await waitFor(async () => (await watcher.llen(mirrorKey(runId))) > 0);
        watcher.disconnect();
        process.kill(doomed.pid, 'SIGKILL');
        const outcome: ResearchResult = await handle.result();
        return { result: outcome, status: await handle.query(researchStatusQuery) };
      });

      expect(result.outcome).toBe('complete');
      expect(result.mirror).toMatchObject({ state: 'gave up', pending: expect.any(Number) });
      expect(result.mirror?.pending).toBeGreaterThan(0);
      expect(result.notes?.join('\n')).toMatch(/mirror gave up after \d+ attempts: .*; \d+ entries not mirrored/);
      expect(status.mirror?.state).toBe('gave up');
    } finally {
      watcher.disconnect();
      await doomed.stop();
    }
  });

  it('starts a directive bridge while Redis is down without waiting on it, and forwards once Redis is up', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const started = Date.now();
    const bridge = await startDirectiveBridge(`redis://127.0.0.1:${port}`, env.client, (line) => lines.push(line));
    const late = await startRedisServer(process.env.REDIS_SERVER_BINARY ?? 'redis-server', { port });
    const publisher = new Redis(late.url);
    try {
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(lines).toContain('directive bridge: Redis does not answer yet; directives are forwarded once it does');
      // No run by that id: the bridge read and claimed the message, and the signal found no run.
      await waitFor(async () => {
        await publisher.publish('scratchpad:nobody-here:directives', `hello ${Date.now()}`);
        return bridge.dropped > 0;
      });
      expect(lines.at(-1)).toMatch(/directive bridge: dropped a directive on scratchpad:nobody-here:directives/);
    } finally {
      publisher.disconnect();
      await bridge.close();
      await late.stop();
    }
  });
});
