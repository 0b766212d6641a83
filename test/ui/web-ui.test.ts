import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { updateAgent } from '../../src/clients/agents';
import { runCycleUpdate } from '../../src/common/messages/agent';
import { ARTIFACTS, frameShowing, launchChromium } from '../helpers/chromium';
import { testEnvironment } from '../helpers/temporal';
import { bundleWorkflows, scriptedWorker } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  env = await testEnvironment();
  bundle = await bundleWorkflows();
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
