import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities';
import { HEARTBEAT_INTERVAL_MS } from '../../src/activities/heartbeat';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { quietEnvironment } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';
import { waitFor } from '../helpers/temporal';

let stub: HttpStub;
let sandbox: string;

beforeAll(async () => {
  stub = await startHttpStub();
  sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'heartbeat-sandbox-'));
});
afterAll(async () => {
  await stub.close();
  fs.rmSync(sandbox, { recursive: true, force: true });
});

function activities(model: ScriptedProvider) {
  return createActivities({
    resolveModel: createModelResolver({ defaultSpec: 'scripted:hb', providers: { 'scripted:hb': model } }),
    tools: {
      sandboxRoot: sandbox,
      shellAllow: [],
      shellTimeoutMs: 1000,
      // web_fetch denies loopback by default: the stub is allowed explicitly.
      fetchAllowHosts: ['127.0.0.1'],
      fetchAllowAddresses: ['127.0.0.1/32'],
      fetchAllowPorts: [Number(new URL(stub.url).port)],
      fetchMaxBytes: 1024,
    },
  });
}

const request = {
  system: 'cycle' as const,
  messages: [{ role: 'user' as const, content: 'go' }],
  tools: ['done'],
  toolChoice: 'any' as const,
};

describe('liveness of long activities', () => {
  it('callModel heartbeats at once and every few seconds while the model is thinking', async () => {
    // The reply makes the call the request forces, so no corrective retry follows it.
    const slow = { text: 'slow answer', tool: 'done', args: { summary: 'ok' }, delayMs: HEARTBEAT_INTERVAL_MS + 700 };
    const model = new ScriptedProvider([slow]);
    const environment = quietEnvironment();
    const beats: number[] = [];
    const started = Date.now();
    environment.on('heartbeat', () => beats.push(Date.now() - started));
    const response = (await environment.run(activities(model).callModel, request)) as { text: string };
    expect(response.text).toBe('slow answer');
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]).toBeLessThan(500);
    expect(beats[1]).toBeGreaterThanOrEqual(HEARTBEAT_INTERVAL_MS - 100);
  });

  it('stops heartbeating once the call has ended', async () => {
    const environment = quietEnvironment();
    let beats = 0;
    environment.on('heartbeat', () => beats++);
    const quick = { text: 'quick', tool: 'done', args: { summary: 'ok' } };
    await environment.run(activities(new ScriptedProvider([quick])).callModel, request);
    const after = beats;
    // Time passing is what this tests: no heartbeat comes in the interval after the call.
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_INTERVAL_MS + 300));
    expect(beats).toBe(after);
  });

  it('runTool heartbeats while web_fetch waits, and cancellation aborts the request', async () => {
    stub.reply({ delayMs: 30_000, body: { never: 'sent' } });
    const environment = quietEnvironment();
    let beats = 0;
    environment.on('heartbeat', () => beats++);
    const call = { cycleId: 'c', agentId: 'a', step: 1, name: 'web_fetch', args: { url: `${stub.url}/slow` } };
    const pending = environment.run(activities(new ScriptedProvider([{ text: 'x' }])).runTool, call);
    await waitFor(() => stub.received.length > 0, { intervalMs: 10 });
    const cancelled = Date.now();
    environment.cancel();
    const outcome = await pending.then(
      (observation) => observation,
      (error: unknown) => error,
    );
    expect(Date.now() - cancelled).toBeLessThan(2000);
    expect(beats).toBeGreaterThanOrEqual(1);
    // The tool layer turns the abort into an error observation, or the SDK reports the cancellation itself.
    if (outcome instanceof CancelledFailure) return;
    expect(outcome).toMatchObject({ ok: false });
  });
});
