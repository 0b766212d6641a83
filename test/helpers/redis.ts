import { type RedisServerHandle, startRedisServer } from './redis-server';

export type { RedisServerHandle };

/** A real `redis-server` on a free loopback port for one test file: call in `beforeAll`, `stop()` in `afterAll`. */
export function testRedisServer(): Promise<RedisServerHandle> {
  return startRedisServer(process.env.REDIS_SERVER_BINARY ?? 'redis-server');
}
