import * as fs from 'node:fs';
import * as path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { type Browser, chromium } from 'playwright-core';
import { updateAgent } from '../../src/agent-client';
import { runCycleUpdate } from '../../src/workflows/definitions';
import { bundleWorkflows, scriptedWorker } from '../helpers/worker';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
// The machine has no internet: without these flags Chromium keeps dialling Google's services.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  env = await TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_TEST_ADDRESS });
  bundle = await bundleWorkflows();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await env?.teardown();
});

describe('Temporal Web UI', () => {
  it("shows a cycle's scratchpad on its workflow page", async () => {
    const uiUrl = process.env.TEMPORAL_TEST_UI_URL;
    if (!uiUrl) throw new Error('the test dev server has no Web UI (TEMPORAL_TEST_UI_URL is not set)');
    const marker = `ZEBRA-${process.pid} launch checklist`;
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'update_scratchpad', args: { workspace: marker, trajectory_now: 'Preparing the launch' } },
      { tool: 'done', args: { summary: 'checklist drafted' } },
    ]);
    const agentId = `ui-${process.pid}-${Date.now()}`;
    const record = await worker.runUntil(
      updateAgent(env.client, { agentId, taskQueue }, runCycleUpdate, [{ tasks: ['Draft the launch checklist'] }]),
    );
    const { runId } = await env.client.workflow.getHandle(record.cycleId).describe();

    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    const url = `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(record.cycleId)}/${runId}/history`;
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    // The cycle's current details (the rendered scratchpad) and its result both carry the marker.
    await page.getByText(marker).first().waitFor({ timeout: 30_000 });
    await expect(page.getByText('agentCycle').first().isVisible()).resolves.toBe(true);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, 'web-ui-cycle.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(fs.statSync(screenshot).size).toBeGreaterThan(10_000);
    await page.close();
  });
});
