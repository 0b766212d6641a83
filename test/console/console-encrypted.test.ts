import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { createActivities } from '../../src/activities';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { Agents } from '../../src/clients/agents';
import { type EncryptionKey, encryptionDataConverter } from '../../src/common/encryption-codec';
import { type RunningConsole, startConsole } from '../../src/console/server';
import { workerSinks } from '../../src/workers/create-worker';
import { ARTIFACTS, launchChromium } from '../helpers/chromium';
import { uniqueId, uniqueTaskQueue } from '../helpers/temporal';
import { sandboxOptions, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let browser: Browser;
const consoles: RunningConsole[] = [];

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  for (const running of consoles) await running.close();
  await browser?.close();
});

const keys: EncryptionKey[] = [{ id: 'console-key', key: new Uint8Array(randomBytes(32)) }];

describe('scratchpad console on an encrypted namespace', () => {
  it('reads an agent with the keys, and says so plainly without them', async () => {
    const marker = `LYNX-${process.pid} ledger`;
    const dataConverter = encryptionDataConverter(keys);
    const client = new Client({ connection: env.connection, dataConverter });
    const taskQueue = uniqueTaskQueue('console-encrypted');
    const model = new ScriptedProvider([
      { text: 'Noted.' },
      { tool: 'update_scratchpad', args: { workspace: marker } },
    ]);
    const worker = await Worker.create({
      ...TEST_WORKER_THREAD,
      connection: env.nativeConnection,
      taskQueue,
      ...WORKER_LIVENESS_OPTIONS,
      workflowBundle: bundle,
      dataConverter,
      activities: createActivities({
        resolveModel: createModelResolver({ defaultSpec: 'scripted:enc', providers: { 'scripted:enc': model } }),
        tools: sandboxOptions(),
      }),
      sinks: workerSinks(),
    });
    const agentId = uniqueId('console-encrypted');
    const agents = new Agents(client);
    await worker.runUntil(async () => {
      const answer = await agents.send({ agentId, taskQueue }, { message: 'Keep the ledger' });
      await agents.waitForCycle({ agentId }, answer.cycleId);
    });

    const keyed = await startConsole({ client });
    const keyless = await startConsole({ client: new Client({ connection: env.connection }) });
    consoles.push(keyed, keyless);
    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    page.setDefaultTimeout(30_000);

    await page.goto(keyed.url.replace('/?', `/agents/${agentId}?`));
    await page.getByText(marker).first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-encrypted-agent.png'), fullPage: true });
    await page.goto(`${new URL(keyed.url).origin}/agents/${agentId}/cycles/1`);
    expect(await page.locator('.add', { hasText: marker }).textContent()).toContain('[update 2.1]');

    await page.goto(keyless.url.replace('/?', `/agents/${agentId}?`));
    await page.getByText('encrypted with a key this console does not have').first().waitFor();
    expect(await page.content()).not.toContain(marker);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-encrypted-keyless.png'), fullPage: true });
    await page.goto(`${new URL(keyless.url).origin}/agents/${agentId}/cycles/1`);
    await page.getByText('encrypted with a key this console does not have').first().waitFor();
    await page.close();
  });
});
