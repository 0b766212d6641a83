import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { updateAgent } from '../../src/clients/agents';
import { runCycleUpdate } from '../../src/common/messages/agent';
import { ENCRYPTED_ENCODING, type EncryptionKey, encryptionDataConverter } from '../../src/common/encryption-codec';
import { type DevServer, startDevServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/dev-server/free-port';
import { workerSinks } from '../../src/workers/create-worker';
import { ARTIFACTS, frameShowing, launchChromium } from '../helpers/chromium';
import { uniqueTaskQueue } from '../helpers/temporal';
import { bundleWorkflows, sandboxOptions, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');
const EventType = temporal.api.enums.v1.EventType;

/** `scratchpad codec-server` as a user runs it, from the built CLI (npm run build). */
async function startCodecServerCli(port: number, origin: string, keyEnv: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'codec-server', '--port', String(port), '--origin', origin], {
    env: { ...process.env, SCRATCHPAD_ENCRYPTION_KEYS: keyEnv, SCRATCHPAD_CODEC_TOKEN: codecToken },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Codec server at')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`codec-server exited with ${code}:\n${output}`)));
  });
  return child;
}

let browser: Browser;
let server: DevServer;
let codecServer: ChildProcess;
let codecUrl: string;
// The UI carries the token in the endpoint's path: it posts to `${endpoint}/decode`.
const codecToken = randomBytes(24).toString('hex');
let connection: Connection;
let nativeConnection: NativeConnection;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-encrypted-'));
// Two keys: the first encrypts; the second is there as after a rotation.
const keys: EncryptionKey[] = [
  { id: 'k2026', key: new Uint8Array(randomBytes(32)) },
  { id: 'k2025', key: new Uint8Array(randomBytes(32)) },
];
const keyEnv = keys.map(({ id, key }) => `${id}:${Buffer.from(key).toString('base64')}`).join(',');

beforeAll(async () => {
  browser = await launchChromium();
  const uiPort = await freePort();
  const codecPort = await freePort();
  codecUrl = `http://127.0.0.1:${codecPort}`;
  codecServer = await startCodecServerCli(codecPort, `http://127.0.0.1:${uiPort}`, keyEnv);
  server = await startDevServer({
    dbFile: path.join(directory, 'temporal.db'),
    uiPort,
    uiCodecEndpoint: `${codecUrl}/t/${codecToken}`,
    log: () => undefined,
  });
  connection = await Connection.connect({ address: server.address });
  nativeConnection = await NativeConnection.connect({ address: server.address });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  codecServer?.kill('SIGTERM');
  await connection?.close();
  await nativeConnection?.close();
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('encrypted history', () => {
  it('the server holds ciphertext; the Web UI shows the scratchpad through the codec server', async () => {
    const marker = `OKAPI-${process.pid} vault inventory`;
    const dataConverter = encryptionDataConverter(keys);
    const client = new Client({ connection, dataConverter });
    const taskQueue = uniqueTaskQueue('encrypted');
    const model = new ScriptedProvider([
      { tool: 'update_scratchpad', args: { workspace: marker, trajectory_now: 'Counting the vault' } },
      { tool: 'done', args: { summary: 'inventory taken' } },
    ]);
    const worker = await Worker.create({
      ...TEST_WORKER_THREAD,
      connection: nativeConnection,
      taskQueue,
      ...WORKER_LIVENESS_OPTIONS,
      workflowBundle: await bundleWorkflows(),
      dataConverter,
      activities: createActivities({
        resolveModel: createModelResolver({ defaultSpec: 'scripted:enc', providers: { 'scripted:enc': model } }),
        tools: sandboxOptions(),
      }),
      sinks: workerSinks(),
    });
    const agentId = `encrypted-${process.pid}-${Date.now()}`;
    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    await worker.runUntil(async () => {
      const record = await updateAgent(client, { agentId, taskQueue }, runCycleUpdate, [{ tasks: ['Take inventory'] }]);
      expect(record.outcome).toBe('completed');

      // A client without the codec reads what the server stores.
      const raw = new Client({ connection });
      const history = await raw.workflow.getHandle(record.cycleId).fetchHistory();
      const events = history.events ?? [];
      const completed = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
      const started = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
      const payloads = [
        ...(completed?.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
        ...(started?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
      ];
      expect(payloads.length).toBeGreaterThanOrEqual(2);
      for (const payload of payloads) {
        expect(Buffer.from(payload.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
        expect(Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString()).toBe('k2026');
        expect(Buffer.from(payload.data ?? []).toString('latin1')).not.toContain('OKAPI');
      }
      const wholeHistory = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
      expect(wholeHistory).not.toContain('OKAPI');
      // The agent's memo (the active scratchpad, read by `show` with no worker) is ciphertext too.
      const described = await raw.workflowService.describeWorkflowExecution({
        namespace: 'default',
        execution: { workflowId: `agent/${agentId}` },
      });
      const memo = described.workflowExecutionInfo?.memo?.fields?.scratchpad;
      expect(Buffer.from(memo?.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
      expect(Buffer.from(memo?.data ?? []).toString('latin1')).not.toContain('OKAPI');
      // The client with the codec reads it back.
      const result = await client.workflow.getHandle(record.cycleId).result();
      expect(result.after.workspace).toBe(marker);

      const { runId } = await client.workflow.getHandle(record.cycleId).describe();
      const url = `${server.uiUrl}/namespaces/default/workflows/${encodeURIComponent(record.cycleId)}/${runId}/history`;
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      // Decoded by the codec server in the browser: the Result panel shows the after-state.
      await page.getByText(marker).first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-encrypted-cycle.png'), fullPage: true });
      // Current details (the rendered scratchpad) are a payload too, decoded the same way.
      await page.getByText('User Metadata', { exact: true }).click();
      const details = await frameShowing(page, marker);
      await expect(details.getByText('Counting the vault').first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-encrypted-details.png'), fullPage: true });
    });
    expect(fs.statSync(path.join(ARTIFACTS, 'web-ui-encrypted-cycle.png')).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it('codec-server answers CORS preflight for the UI origin only, needs its token and rejects a malformed body', async () => {
    const origin = new URL(server.uiUrl as string).origin;
    const endpoint = `${codecUrl}/t/${codecToken}`;
    const preflight = await fetch(`${endpoint}/decode`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-namespace' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    expect((await fetch(`${codecUrl}/decode`, { method: 'POST', body: '{"payloads": []}' })).status).toBe(401);
    const bad = await fetch(`${endpoint}/decode`, { method: 'POST', body: '{"nope": 1}' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(origin);
    const unknownKey = await fetch(`${endpoint}/decode`, {
      method: 'POST',
      body: JSON.stringify({
        payloads: [
          {
            metadata: {
              encoding: Buffer.from(ENCRYPTED_ENCODING).toString('base64'),
              'encryption-key-id': Buffer.from('nobody').toString('base64'),
            },
            data: 'AAAA',
          },
        ],
      }),
    });
    expect(unknownKey.status).toBe(422);
    expect(await unknownKey.text()).toContain('not configured');
  });
});
