import type Redis from 'ioredis';
import { redisClass } from '../../common/redis-class';
import type { EntryInfo, EntryKind, NewEntry, ObservationStore, ResultFormat, StoreOptions } from './entry';
import { describeNewEntry, isLive, newEntryId } from './entry';

/** Options of the Redis backend. */
export interface RedisStoreOptions extends StoreOptions {
  /** Prefix of every key, so several deployments can share one Redis. */
  keyPrefix?: string;
  /** Let the process exit while the connection is open (a worker closes it on shutdown otherwise). */
  unref?: boolean;
}

function toFields(info: EntryInfo): Record<string, string> {
  return {
    turn_id: info.turnId,
    step_num: info.step === null ? '' : String(info.step),
    executor_name: info.toolName ?? '',
    agent_id: info.agentId ?? '',
    content_kind: info.kind,
    size_bytes: String(info.sizeBytes),
    summary: info.summary ?? '',
    has_summary: info.summary === null ? '0' : '1',
    created_at: String(info.createdAt),
    expires_at: info.expiresAt === null ? '' : String(info.expiresAt),
    metadata: JSON.stringify(info.metadata),
    result_format: info.resultFormat,
  };
}

function fromFields(id: string, fields: Record<string, string>): EntryInfo | undefined {
  if (fields.turn_id === undefined) return undefined;
  const orNull = (value: string | undefined) => (value ? value : null);
  return {
    id,
    turnId: fields.turn_id,
    step: fields.step_num ? Number(fields.step_num) : null,
    toolName: orNull(fields.executor_name),
    agentId: orNull(fields.agent_id),
    kind: fields.content_kind as EntryKind,
    sizeBytes: Number(fields.size_bytes),
    summary: fields.has_summary === '1' ? (fields.summary ?? '') : null,
    metadata: JSON.parse(fields.metadata ?? '{}') as Record<string, unknown>,
    resultFormat: fields.result_format as ResultFormat,
    createdAt: Number(fields.created_at),
    expiresAt: fields.expires_at ? Number(fields.expires_at) : null,
  };
}

/**
 * The shared backend for several worker hosts. Per entry a hash (its fields) and a string (its content); per
 * cycle a hash step → newest id; one sorted set of expiry times that `gc` sweeps. Keys carry no Redis TTL: like the
 * SQLite file, entries go when `gc` runs, so both backends behave the same.
 */
export class RedisObservationStore implements ObservationStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(url: string, options: RedisStoreOptions = {}) {
    this.redis = new (redisClass())(url, { maxRetriesPerRequest: 3 });
    // Failures reach callers as rejected commands; without a listener ioredis would also print each one.
    this.redis.on('error', () => undefined);
    this.prefix = options.keyPrefix ?? 'scratchpad:observations:';
    this.now = options.now ?? Date.now;
    if (options.unref) this.redis.on('connect', () => this.redis.stream.unref());
  }

  async put(entry: NewEntry): Promise<EntryInfo> {
    const info = describeNewEntry(entry, newEntryId(), this.now());
    const content = typeof entry.content === 'string' ? entry.content : Buffer.from(entry.content);
    const transaction = this.redis
      .multi()
      .hset(this.key('entry', info.id), toFields(info))
      .set(this.key('content', info.id), content);
    transaction.hset(this.key('turn', info.turnId), turnField(info.step, info.id), info.id);
    if (info.expiresAt !== null) transaction.zadd(this.key('expiries'), info.expiresAt, info.id);
    await execOrThrow(transaction);
    return info;
  }

  async info(id: string): Promise<EntryInfo | undefined> {
    const info = fromFields(id, await this.redis.hgetall(this.key('entry', id)));
    return info && isLive(info, this.now()) ? info : undefined;
  }

  async content(entry: EntryInfo): Promise<string | Buffer | undefined> {
    const bytes = await this.redis.getBuffer(this.key('content', entry.id));
    if (bytes === null) return undefined;
    return entry.kind === 'text' ? bytes.toString('utf-8') : bytes;
  }

  async findStep(turnId: string, step: number): Promise<EntryInfo | undefined> {
    const id = await this.redis.hget(this.key('turn', turnId), String(step));
    return id === null ? undefined : this.info(id);
  }

  async listForTurn(turnId: string): Promise<EntryInfo[]> {
    const ids = Object.values(await this.redis.hgetall(this.key('turn', turnId)));
    const infos = await Promise.all(ids.map((id) => this.info(id)));
    return infos
      .filter((info): info is EntryInfo => info !== undefined)
      .sort((a, b) => (a.step ?? -1) - (b.step ?? -1) || a.createdAt - b.createdAt);
  }

  async gc(): Promise<number> {
    const ids = await this.redis.zrangebyscore(this.key('expiries'), '-inf', this.now());
    if (ids.length === 0) return 0;
    const owners = await Promise.all(ids.map((id) => this.redis.hmget(this.key('entry', id), 'turn_id', 'step_num')));
    const transaction = this.redis.multi();
    ids.forEach((id, index) => {
      const [turnId, step] = owners[index] ?? [];
      transaction.del(this.key('entry', id), this.key('content', id)).zrem(this.key('expiries'), id);
      // Only if the step still points here: a retried tool call may have stored a newer entry for it.
      if (turnId)
        transaction.eval(UNLINK_STEP, 1, this.key('turn', turnId), turnField(step ? Number(step) : null, id), id);
    });
    await execOrThrow(transaction);
    return ids.length;
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }
}

// A cycle's index maps each step to its newest entry; entries stored without a step are listed under their id.
function turnField(step: number | null, id: string): string {
  return step === null ? `entry:${id}` : String(step);
}

const UNLINK_STEP = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0`;

async function execOrThrow(transaction: ReturnType<Redis['multi']>): Promise<void> {
  const results = await transaction.exec();
  if (results === null) throw new Error('Redis transaction was aborted');
  const failed = results.find(([error]) => error !== null);
  if (failed?.[0]) throw failed[0];
}
