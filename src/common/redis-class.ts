import type Redis from 'ioredis';

/** ioredis, loaded at first use: a worker or command with no Redis configured skips its load (about 30 ms of CPU). */
export function redisClass(): typeof Redis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use, see above
  return (require('ioredis') as typeof import('ioredis')).Redis;
}
