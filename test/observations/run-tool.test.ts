import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { type Activities, createActivities } from '../../src/activities';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { Observation, ToolCallInput } from '../../src/core/tools/observation';
import { SqliteObservationStore } from '../../src/activities/observations/sqlite-store';
import { SYNTHETIC_MAX_BYTES, observationBytes } from '../../src/activities/observations/synthetic';

let directory: string;
let tools: ToolOptions;
let store: SqliteObservationStore;
let clock: number;
let activities: Activities;
const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'observed-tool-'));
  tools = {
    sandboxRoot: path.join(directory, 'sandbox'),
    shellAllow: ['echo'],
    shellTimeoutMs: 5000,
    fetchAllowHosts: ['127.0.0.1'],
    fetchMaxBytes: 1024 * 1024,
  };
  fs.mkdirSync(tools.sandboxRoot);
  clock = Date.now();
  store = new SqliteObservationStore(path.join(directory, 'observations.db'), { now: () => clock });
  activities = createActivities({
    resolveModel: () => {
      throw new Error('no model here');
    },
    tools,
    observations: store,
  });
});

afterEach(async () => {
  await store.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

function runTool(name: string, args: Record<string, unknown>, step: number, cycleId = 'cycle-1'): Promise<Observation> {
  const call: ToolCallInput = { cycleId, agentId: 'agent-1', step, name, args };
  return environment.run(activities.runTool, call);
}

function writeSandbox(file: string, content: string | Buffer): void {
  fs.writeFileSync(path.join(tools.sandboxRoot, file), content);
}

describe('runTool with the observation store', () => {
  it('returns a small observation unchanged, and stores it for references', async () => {
    const observation = await runTool('echo', { message: 'hi' }, 1);
    expect(observation).toEqual({ ok: true, result: 'ECHO: hi' });
    const stored = await store.findStep('cycle-1', 1);
    expect(stored).toMatchObject({ toolName: 'echo', kind: 'text', summary: null, agentId: 'agent-1' });
    expect(await store.content(stored!)).toBe('ECHO: hi');
  });

  it('replaces a large observation by the synthetic one and keeps the whole of it in the store', async () => {
    const log = `${'INFO event\n'.repeat(80_000)}ERROR disk full\n`;
    writeSandbox('big_log.txt', log);
    const observation = await runTool('fs_read', { path: 'big_log.txt' }, 1);
    expect(observation).toMatchObject({ ok: true, kind: 'text', size_bytes: log.length });
    expect(observation.metadata).toEqual({ path: 'big_log.txt', bytes: log.length, encoding: 'utf-8' });
    expect(observation.summary).toMatch(/ERROR disk full\n$/);
    expect(observationBytes(observation)).toBeLessThan(SYNTHETIC_MAX_BYTES);
    const entry = await store.info(observation.scratchpad_id as string);
    expect(entry).toMatchObject({ turnId: 'cycle-1', step: 1, toolName: 'fs_read', summary: observation.summary });
    expect(await store.content(entry!)).toBe(log);
  });

  it('stores binary as bytes with a sha256 summary and reads it back as base64', async () => {
    const bytes = Buffer.from(Array.from({ length: 9000 }, (_, index) => index % 256));
    writeSandbox('blob.bin', bytes);
    const observation = await runTool('fs_read', { path: 'blob.bin' }, 1);
    expect(observation).toMatchObject({
      kind: 'binary',
      size_bytes: 9000,
      summary: expect.stringMatching(/^\[BINARY: 9000 bytes, sha256=[0-9a-f]{64}\]$/),
    });
    const slice = await runTool(
      'scratchpad_read',
      { scratchpad_id: observation.scratchpad_id, mode: 'range', start: 256, end: 260 },
      2,
    );
    expect(slice).toMatchObject({ ok: true, kind: 'binary', encoding: 'base64', start: 256, end: 260 });
    expect(Buffer.from(slice.result as string, 'base64')).toEqual(bytes.subarray(256, 260));
  });

  it('reads slices with scratchpad_read, never offloading the read itself', async () => {
    writeSandbox('big.txt', `${'0123456789'.repeat(1000)}THE END`);
    const { scratchpad_id: id } = await runTool('fs_read', { path: 'big.txt' }, 1);
    expect(await runTool('scratchpad_read', { scratchpad_id: id, mode: 'tail', n: 7 }, 2)).toEqual({
      ok: true,
      scratchpad_id: id,
      kind: 'text',
      mode: 'tail',
      start: 10_000,
      end: 10_007,
      total_chars: 10_007,
      result: 'THE END',
    });
    const head = await runTool('scratchpad_read', { scratchpad_id: id, n: 4000 }, 3);
    expect(head.scratchpad_id).toBe(id);
    expect(head.result).toHaveLength(4000);
    expect(head.summary).toBeUndefined();
  });

  it('refuses entries of another cycle, unknown ids, a bad mode and a bad regex with clear errors', async () => {
    writeSandbox('big.txt', 'z'.repeat(10_000));
    const { scratchpad_id: id } = await runTool('fs_read', { path: 'big.txt' }, 1);
    expect(await runTool('scratchpad_read', { scratchpad_id: id }, 1, 'cycle-2')).toEqual({
      ok: false,
      error: `scratchpad entry ${id} belongs to another cycle; a cycle can read only the entries it stored`,
    });
    expect(await runTool('scratchpad_read', { scratchpad_id: 'ffffffffffffffff' }, 2)).toEqual({
      ok: false,
      error:
        'no scratchpad entry ffffffffffffffff: it was never stored, has expired, or is in an observation store ' +
        'this worker does not use; reading it again will not help',
    });
    const badMode = await runTool('scratchpad_read', { scratchpad_id: id, mode: 'middle' }, 3);
    expect(badMode.error).toMatch(/^invalid arguments for scratchpad_read:\n.*mode/s);
    const missingId = await runTool('scratchpad_read', { mode: 'head' }, 4);
    expect(missingId.error).toMatch(/required: the scratchpad_id of a stored observation\n  → at scratchpad_id/);
    const badRegex = await runTool('scratchpad_read', { scratchpad_id: id, mode: 'grep', pattern: '[z' }, 5);
    expect(badRegex).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid regular expression \/\[z\/:/) });
  });

  it('lets later cycles of the same agent read never-expiring entries (archives), not other agents', async () => {
    const archive = await store.put({
      turnId: 'cycle-0',
      agentId: 'agent-1',
      kind: 'text',
      content: 'old notes',
      ttlSeconds: null,
    });
    expect(await runTool('scratchpad_read', { scratchpad_id: archive.id, mode: 'full' }, 1)).toMatchObject({
      ok: true,
      result: 'old notes',
    });
    const call = {
      cycleId: 'cycle-9',
      agentId: 'agent-2',
      step: 1,
      name: 'scratchpad_read',
      args: { scratchpad_id: archive.id },
    };
    expect(await environment.run(activities.runTool, call)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/another cycle/),
    });
  });

  it('resolves {{stepN.content}} from the full stored content, not the summary', async () => {
    const body = Array.from({ length: 700 }, (_, index) => `{"line": ${index}, "text": "naïve 😀"}`).join('\n');
    writeSandbox('body.json', body);
    const first = await runTool('fs_read', { path: 'body.json' }, 1);
    expect(first.scratchpad_id).toBeDefined();
    const written = await runTool('fs_write', { path: 'copy.json', content: '{{step1.content}}' }, 2);
    expect(written).toMatchObject({ ok: true, bytes: Buffer.byteLength(body) });
    expect(fs.readFileSync(path.join(tools.sandboxRoot, 'copy.json'))).toEqual(
      fs.readFileSync(path.join(tools.sandboxRoot, 'body.json')),
    );
  });

  it('does not run the tool when a reference cannot be resolved', async () => {
    const failed = await runTool('fs_write', { path: 'never.txt', content: '{{step4.content}}' }, 2);
    expect(failed).toEqual({
      ok: false,
      error: '{{step4.content}}: no tool observation of step 4 is stored for this cycle',
    });
    expect(fs.existsSync(path.join(tools.sandboxRoot, 'never.txt'))).toBe(false);
  });

  it('gcObservations deletes expired entries', async () => {
    await runTool('echo', { message: 'soon gone' }, 1);
    expect(await environment.run(activities.gcObservations)).toEqual({ removed: 0, missingArchives: [] });
    clock += 3601 * 1000;
    expect(await environment.run(activities.gcObservations)).toEqual({ removed: 1, missingArchives: [] });
    expect(await store.findStep('cycle-1', 1)).toBeUndefined();
  });

  it("gcObservations names the archives of the agent's memory that the store does not hold", async () => {
    const archive = (agentId: string) =>
      environment.run(activities.archiveContent, {
        agentId,
        cycleId: 'cycle-1',
        section: 'workspace',
        content: 'old',
      }) as Promise<{ id: string }>;
    const { id: own } = await archive('agent-1');
    const { id: another } = await archive('agent-2');
    const archiveIds = [own, another, 'ffffffffffffffff'];
    // A later cycle of the agent reads its archives; another agent's are as good as missing to it.
    const request = { agentId: 'agent-1', cycleId: 'cycle-9', archiveIds };
    expect(await environment.run(activities.gcObservations, request)).toEqual({
      removed: 0,
      missingArchives: [another, 'ffffffffffffffff'],
    });
  });

  it('reads a 10 MB entry by range and grep in well under 50 ms (median, SQLite)', async () => {
    const line = 'INFO 2026-04-26 10:00:00 event with some payload 😀\n';
    writeSandbox('ten.txt', line.repeat(Math.ceil(10_000_000 / Buffer.byteLength(line))));
    const { scratchpad_id: id } = await runTool('fs_read', { path: 'ten.txt' }, 1);
    const median = async (args: Record<string, unknown>) => {
      const times: number[] = [];
      for (let run = 0; run < 7; run++) {
        const started = performance.now();
        const read = await runTool('scratchpad_read', { scratchpad_id: id, ...args }, 2 + run);
        times.push(performance.now() - started);
        expect(read.ok).toBe(true);
      }
      return times.sort((a, b) => a - b)[3] as number;
    };
    expect(await median({ mode: 'range', start: 5_000_000, end: 5_002_000 })).toBeLessThan(50);
    expect(await median({ mode: 'grep', pattern: 'event with some payload 😀$', max_matches: 5 })).toBeLessThan(50);
    expect(await median({ mode: 'lines', line_start: 150_000, line_end: 150_010 })).toBeLessThan(50);
  });
});
