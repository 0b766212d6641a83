import type { ObservationStore } from './entry';
import { RedisObservationStore, type RedisStoreOptions } from './redis-store';
import { SqliteObservationStore } from './sqlite-store';

/** Whether a `SCRATCHPAD_OBSERVATIONS` value names a Redis server. */
export function isRedisUrl(spec: string): boolean {
  return /^rediss?:\/\//i.test(spec);
}

/** The store `SCRATCHPAD_OBSERVATIONS` names: `redis://…` (several worker hosts), else a SQLite file path. */
export function openObservationStore(spec: string, options: RedisStoreOptions = {}): ObservationStore {
  if (isRedisUrl(spec)) return new RedisObservationStore(spec, options);
  return new SqliteObservationStore(spec.replace(/^sqlite:(\/\/)?/i, ''), options);
}
