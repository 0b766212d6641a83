import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisServerHandle, startRedisServer } from '../helpers/redis-server';
import { FaultSuite } from './suite';

const BINARY = process.env.REDIS_SERVER_BINARY ?? 'redis-server';
// Long enough that reads issued meanwhile wait for the server to come back.
const DOWN_MS = 500;

const suite = new FaultSuite();
const directory = path.join(suite.directory, 'redis');
let redis: RedisServerHandle;

beforeAll(async () => {
  fs.mkdirSync(directory);
  redis = await startRedisServer(BINARY, { directory, persistent: true });
  await suite.start();
  await suite.startWorker(redis.url).ready;
}, 120_000);
afterAll(async () => {
  await suite.stop();
  await redis?.stop();
});

describe('redis-server (the observation store) killed with SIGKILL', () => {
  it('during a read of a stored observation: restarted, the cycle ends once with nothing lost or doubled', async () => {
    const records = await suite.run('redis-server', ['store read'], async () => {
      const old = redis;
      process.kill(old.pid, 'SIGKILL');
      await old.stop();
      await sleep(DOWN_MS);
      redis = await startRedisServer(BINARY, { directory, port: old.port, persistent: true });
    });
    expect(records.filter((record) => record.problems.length > 0)).toEqual([]);
  });
});
