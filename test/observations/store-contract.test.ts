import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ObservationStore, StoreOptions } from '../../src/activities/observations/entry';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { RedisObservationStore } from '../../src/activities/observations/redis-store';
import { SqliteObservationStore } from '../../src/activities/observations/sqlite-store';
import { type RedisServerHandle, testRedisServer } from '../helpers/redis';

let redis: RedisServerHandle;
let directory: string;
let storeCounter = 0;

beforeAll(async () => {
  redis = await testRedisServer();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'observations-contract-'));
});

afterAll(async () => {
  await redis?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

const BACKENDS: [string, (options: StoreOptions) => ObservationStore][] = [
  ['sqlite', (options) => new SqliteObservationStore(path.join(directory, `store-${storeCounter++}.db`), options)],
  ['redis', (options) => new RedisObservationStore(redis.url, { ...options, keyPrefix: `test:${storeCounter++}:` })],
  ['memory', (options) => new MemoryObservationStore(options)],
];

describe.each(BACKENDS)('ObservationStore contract: %s', (_name, open) => {
  let store: ObservationStore;
  let clock: number;

  beforeEach(() => {
    clock = Date.UTC(2026, 3, 26, 10, 0, 0);
    store = open({ now: () => clock });
  });

  afterEach(async () => {
    await store.close();
  });

  it('stores text under a 16-hex id and gives it back with its facts', async () => {
    const text = 'INFO start\nERROR naïve 😀 end\n';
    const info = await store.put({
      turnId: 'cycle-a',
      step: 1,
      toolName: 'fs_read',
      kind: 'text',
      content: text,
      summary: 'a summary',
      metadata: { ok: true, path: 'log.txt', bytes: 31 },
    });
    expect(info.id).toMatch(/^[0-9a-f]{16}$/);
    expect(info).toMatchObject({ turnId: 'cycle-a', step: 1, toolName: 'fs_read', kind: 'text', agentId: null });
    expect(info.sizeBytes).toBe(Buffer.byteLength(text));
    expect(info.createdAt).toBe(clock);
    expect(info.expiresAt).toBe(clock + 3600 * 1000);
    expect(await store.info(info.id)).toEqual(info);
    expect(await store.content(info)).toBe(text);
  });

  it('keeps empty text, binary bytes and a missing summary exactly', async () => {
    const empty = await store.put({ turnId: 'c', step: 1, kind: 'text', content: '' });
    expect(await store.content(empty)).toBe('');
    expect((await store.info(empty.id))?.summary).toBeNull();
    const bytes = Buffer.from([0, 255, 1, 254, 0x80, 0]);
    const binary = await store.put({ turnId: 'c', step: 2, kind: 'binary', content: bytes, resultFormat: 'base64' });
    const back = await store.content(binary);
    expect(Buffer.isBuffer(back)).toBe(true);
    expect(Buffer.compare(back as Buffer, bytes)).toBe(0);
    expect(binary.sizeBytes).toBe(6);
  });

  it('answers undefined for an unknown id', async () => {
    expect(await store.info('0123456789abcdef')).toBeUndefined();
  });

  it('finds the newest entry of a step and lists a cycle by step, never another cycle', async () => {
    await store.put({ turnId: 'cycle-a', step: 2, kind: 'text', content: 'two' });
    const first = await store.put({ turnId: 'cycle-a', step: 1, kind: 'text', content: 'one' });
    clock += 1000;
    const retried = await store.put({ turnId: 'cycle-a', step: 1, kind: 'text', content: 'one again' });
    await store.put({ turnId: 'cycle-b', step: 1, kind: 'text', content: 'other cycle' });
    expect((await store.findStep('cycle-a', 1))?.id).toBe(retried.id);
    expect(await store.findStep('cycle-a', 3)).toBeUndefined();
    expect(await store.findStep('cycle-c', 1)).toBeUndefined();
    const listed = await store.listForTurn('cycle-a');
    expect(listed.map((entry) => entry.step)).toEqual(expect.arrayContaining([1, 2]));
    expect(listed.every((entry) => entry.turnId === 'cycle-a')).toBe(true);
    expect(listed.at(-1)?.step).toBe(2);
    expect(first.id).not.toBe(retried.id);
  });

  it('hides expired entries, and gc deletes them while keeping live and never-expiring ones', async () => {
    const short = await store.put({ turnId: 'c', step: 1, kind: 'text', content: 'short', ttlSeconds: 60 });
    const hour = await store.put({ turnId: 'c', step: 2, kind: 'text', content: 'default ttl' });
    const archive = await store.put({ turnId: 'c', kind: 'text', content: 'archive', ttlSeconds: null, agentId: 'a1' });
    expect(archive.expiresAt).toBeNull();
    expect(archive.agentId).toBe('a1');

    clock += 61 * 1000;
    expect(await store.info(short.id)).toBeUndefined();
    expect(await store.findStep('c', 1)).toBeUndefined();
    expect(await store.info(hour.id)).toBeDefined();
    expect(await store.gc()).toBe(1);
    expect(await store.content(short)).toBeUndefined();
    expect(await store.gc()).toBe(0);

    clock += 100 * 24 * 3600 * 1000;
    expect(await store.gc()).toBe(1);
    expect(await store.info(hour.id)).toBeUndefined();
    expect(await store.content(hour)).toBeUndefined();
    expect(await store.info(archive.id)).toEqual(archive);
    expect(await store.content(archive)).toBe('archive');
    expect((await store.listForTurn('c')).map((entry) => entry.id)).toEqual([archive.id]);
  });

  it('refuses a non-positive ttl and content of the wrong kind', async () => {
    await expect(store.put({ turnId: 'c', kind: 'text', content: 'x', ttlSeconds: 0 })).rejects.toThrow(/ttlSeconds/);
    await expect(store.put({ turnId: 'c', kind: 'binary', content: 'x' })).rejects.toThrow(/byte content/);
  });

  it('round-trips 10 MB of multi-byte text', async () => {
    const text = 'é😀x\n'.repeat(1_000_000);
    const info = await store.put({ turnId: 'c', step: 1, kind: 'text', content: text });
    expect(info.sizeBytes).toBe(Buffer.byteLength(text));
    expect(await store.content(info)).toBe(text);
  });
});
