import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { type Browser, type Frame, type Page, chromium } from 'playwright-core';
import { updateAgent } from '../../src/client/agent-client';
import { runCycleUpdate } from '../../src/common/agent-messages';
import { testEnvironment } from '../helpers/temporal';
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

/** Whether `frame` shows `text` in an iframe laid out on the page (not one being replaced). */
async function isShowing(frame: Frame, text: string): Promise<boolean> {
  const visible = await frame
    .getByText(text)
    .first()
    .isVisible()
    .catch(() => false);
  if (!visible) return false;
  const box = await (await frame.frameElement().catch(() => null))?.boundingBox();
  return (box?.height ?? 0) > 100;
}

/** The frame that shows `text`: the UI renders markdown (summary, details) in sandboxed iframes of its own. */
async function frameShowing(page: Page, text: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) if (await isShowing(frame, text)) return frame;
    await page.waitForTimeout(250);
  }
  throw new Error(`no frame of ${page.url()} showed "${text}" within ${timeoutMs} ms`);
}

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  env = await testEnvironment();
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
    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // The worker stays up while browsing: the UI asks the workflow for its current details with a query.
    await worker.runUntil(async () => {
      const record = await updateAgent(env.client, { agentId, taskQueue }, runCycleUpdate, [
        { tasks: ['Draft the launch checklist'] },
      ]);
      const { runId } = await env.client.workflow.getHandle(record.cycleId).describe();
      const url = `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(record.cycleId)}/${runId}/history`;
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      // The cycle's result (its after-state) carries the marker in the Result panel.
      await page.getByText(marker).first().waitFor({ timeout: 30_000 });
      await expect(page.getByText('agentCycle').first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-cycle.png'), fullPage: true });

      // Current details: the scratchpad rendered as markdown by the cycle's last setCurrentDetails.
      await page.getByText('User Metadata', { exact: true }).click();
      const details = await frameShowing(page, marker);
      await expect(details.getByText('Preparing the launch').first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-cycle-details.png'), fullPage: true });
    });
    for (const file of ['web-ui-cycle.png', 'web-ui-cycle-details.png']) {
      expect(fs.statSync(path.join(ARTIFACTS, file)).size).toBeGreaterThan(10_000);
    }
    await page.close();
  });
});
