import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { Agents } from '../../src/clients/agents';
import { type RunningConsole, startConsole } from '../../src/console/server';
import { ARTIFACTS, launchChromium } from '../helpers/chromium';
import { uniqueId } from '../helpers/temporal';
import { type ScriptedWorker, scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

/* The console's chat box: the reply shows as the model writes it, from the turn's stream, with no script. */

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let browser: Browser;
let running: RunningConsole;
let scripted: ScriptedWorker;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const REPLY = 'The west vault holds the ledgers, the east vault the maps, and the cellar nothing anyone will admit to.';

beforeAll(async () => {
  browser = await launchChromium();
  scripted = await scriptedWorker(
    env,
    bundle,
    [
      { text: 'Hello.' },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Greeted' } },
      { text: REPLY, delayMs: 4_000 },
      { tool: 'update_scratchpad', args: { trajectory_now: 'Told of the vaults' } },
    ],
    'console-stream',
  );
  running = await startConsole({ client: env.client, observations: scripted.observations });
});

afterAll(async () => {
  await running?.close();
  await browser?.close();
});

it('a message from the chat box shows its reply as it is written, then links to the cycle', async () => {
  const agentId = uniqueId('console-stream');
  const agents = new Agents(env.client);
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await scripted.worker.runUntil(async () => {
    // The agent exists (the console chats with agents it lists).
    const first = await agents.send({ agentId, taskQueue: scripted.taskQueue }, { message: 'Hi' });
    await agents.waitForCycle({ agentId }, first.cycleId);
    await page.goto(running.url);
    await page.goto(`${new URL(running.url).origin}/agents/${agentId}`);
    await page.locator('textarea[name=message]').fill('What is in the vaults?');
    // The live page arrives in pieces: look at it before it has finished loading.
    await Promise.all([
      page.waitForURL(/\/cycles\/2\/live$/, { waitUntil: 'commit' }),
      page.getByRole('button', { name: 'Send', exact: true }).click({ noWaitAfter: true }),
    ]);
    const reply = page.locator('pre.reply').first();
    await reply.filter({ hasText: 'The west vault' }).waitFor();
    const early = (await reply.textContent()) ?? '';
    expect(early.length).toBeGreaterThan(0);
    expect(early.length).toBeLessThan(REPLY.length);
    await page.getByRole('link', { name: "The cycle's page" }).waitFor();
    expect(await reply.textContent()).toBe(REPLY);
    expect(await page.getByText('Reply ended; reflect runs after.').count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-live-turn.png'), fullPage: true });
    await agents.waitForCycle(
      { agentId },
      (await agents.status(agentId)).running?.cycleId ?? `agent/${agentId}/cycle/2`,
    );
  });
});
