import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import Redis from 'ioredis';
import { mirrorEntries, mirrorKey } from '../../src/activities/research/mirror';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, verifyScript } from '../../src/cli/demo/research-scripts';
import { startDirectiveBridge } from '../../src/clients/directive-bridge';
import type { BoardEntry } from '../../src/core/research/board';
import { researchWorkflowId } from '../../src/common/ids';
import { boardQuery, researchStatusQuery } from '../../src/common/messages/research';
import { type RedisServerHandle, testRedisServer } from '../helpers/redis';
import { testEnvironment } from '../helpers/temporal';
import { bundleWorkflows } from '../helpers/worker';
import { researchTestWorker, waitFor } from '../helpers/research';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
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
      [factRoute('Hooli', 'revenue')]: verifyScript(web.base, 'Hooli', '/hooli', '3,000,000', 3000),
      [factRoute('Hooli', 'employees')]: verifyScript(web.base, 'Hooli', '/hooli', '640', 3000),
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
});
