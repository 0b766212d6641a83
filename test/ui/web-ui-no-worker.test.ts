import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser, Frame, Page } from 'playwright-core';
import { updateAgent } from '../../src/clients/agents';
import { startStaged } from '../../src/clients/staged-runs';
import { runCycleUpdate } from '../../src/common/messages/agent';
import { ARTIFACTS, launchChromium } from '../helpers/chromium';
import { testEnvironment, waitFor } from '../helpers/temporal';
import { bundleWorkflows, scriptedWorker } from '../helpers/worker';

jest.setTimeout(180_000);

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

/** The frame whose body shows `text`: the UI renders summary and details as markdown in frames of its own. */
async function frameWithText(page: Page, text: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const body = await frame
        .locator('body')
        .innerText({ timeout: 1000 })
        .catch(() => '');
      if (frame !== page.mainFrame() && body.includes(text)) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no frame of ${page.url()} showed "${text}" within ${timeoutMs} ms`);
}

/** Opens a workflow's page in the UI on `tab` (its tabs are links: `history`, `metadata`, `memo`). */
async function openWorkflow(page: Page, uiUrl: string, workflowId: string, tab: string): Promise<void> {
  const { runId } = await env.client.workflow.getHandle(workflowId).describe();
  const url = `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}/${tab}`;
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.getByText(workflowId, { exact: true }).first().waitFor();
}

/** What the Memo tab shows: the memo as JSON, each field's text with its line breaks. */
async function memoText(page: Page, expected: string): Promise<string> {
  await page.getByText('Memo', { exact: true }).first().click();
  await page.getByText(expected).first().waitFor();
  return page.locator('main').innerText();
}

/** The visibility query's executions, once visibility has caught up with `ready`. */
async function listed(query: string, ready: (ids: string[]) => boolean): Promise<void> {
  await waitFor(async () => {
    const ids: string[] = [];
    for await (const workflow of env.client.workflow.list({ query })) ids.push(workflow.workflowId);
    return ready(ids);
  });
}

describe('Temporal Web UI with no worker running', () => {
  it("shows a failed cycle's outcome on its page and in the list, and a staged run's details", async () => {
    const uiUrl = process.env.TEMPORAL_TEST_UI_URL;
    if (!uiUrl) throw new Error('the test dev server has no Web UI (TEMPORAL_TEST_UI_URL is not set)');
    const marker = `OTTER-${process.pid}`;
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      // The agent's cycle: its model refuses the key for good, so the cycle ends `failed` with the reason.
      { error: { type: 'ModelError.Auth', message: `invalid x-api-key ${marker}`, nonRetryable: true } },
      // The staged run's one stage: writes a file and says it is done; with no verification it is `unverified`.
      { tool: 'fs_write', args: { path: 'release-notes.md', content: `# ${marker}\n` } },
      { tool: 'done', args: { summary: 'release notes written' } },
    ]);
    const agentId = `ui-no-worker-${process.pid}-${Date.now()}`;
    const task = `Publish the ${marker} release notes`;
    let cycleId = '';
    let stagedId = '';
    await worker.runUntil(async () => {
      const record = await updateAgent(env.client, { agentId, taskQueue }, runCycleUpdate, [{ tasks: [task] }]);
      expect(record.outcome).toBe('failed');
      cycleId = record.cycleId;
      const handle = await startStaged(env.client, taskQueue, {
        agentId,
        task: `Write ${marker} notes`,
        staged: false,
      });
      stagedId = handle.workflowId;
      expect((await handle.result()).outcome).toBe('unverified');
    });
    // runUntil has shut the worker down: from here on nothing answers a query, as after `npm start` exits.
    expect(worker.getState()).toBe('STOPPED');
    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    page.setDefaultTimeout(30_000);

    // The failed cycle: what it was asked (static details), and its outcome in words first in its memo.
    await openWorkflow(page, uiUrl, cycleId, 'history');
    await page.getByText('User Metadata', { exact: true }).click();
    const asked = await frameWithText(page, 'task cycle');
    expect(await asked.locator('body').innerText()).toContain(task);
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-no-worker-cycle-metadata.png'), fullPage: true });
    const memo = await memoText(page, `failed: `);
    expect(memo).toMatch(new RegExp(`"outcome": "failed: .*invalid x-api-key ${marker}`));
    expect(memo).toMatch(new RegExp(`"details": "failed: .*invalid x-api-key ${marker}`));
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-no-worker-cycle-memo.png'), fullPage: true });

    // The staged run, which had no summary or details: what it was asked, and how it ended.
    await openWorkflow(page, uiUrl, stagedId, 'history');
    await page.getByText('User Metadata', { exact: true }).click();
    const summary = await frameWithText(page, `staged: Write ${marker} notes`);
    expect(summary).toBeDefined();
    const details = await frameWithText(page, 'staged run');
    const detailsText = await details.locator('body').innerText();
    expect(detailsText).toContain(`Write ${marker} notes`);
    expect(detailsText).toContain('the run can end unverified at best');
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-no-worker-staged-metadata.png'), fullPage: true });
    const stagedMemo = await memoText(page, 'unverified: ');
    expect(stagedMemo).toContain('"outcome": "unverified: the stages finished but no verification command was given');
    expect(stagedMemo).toContain('release-notes.md');
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-no-worker-staged-memo.png'), fullPage: true });

    // The list, with the `CycleOutcome` column added as a user would (the table's column chooser).
    const query = `AgentId="${agentId}"`;
    await listed(`${query} AND CycleOutcome="failed"`, (ids) => ids.includes(cycleId));
    await listed(`${query} AND CycleOutcome="unverified"`, (ids) => ids.includes(stagedId));
    await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`, {
      waitUntil: 'domcontentloaded',
    });
    await page.getByText(cycleId, { exact: true }).first().waitFor();
    await page.getByTestId('workflows-summary-table-configuration-button').click();
    await page.getByTestId('orderable-list-item-CycleOutcome-add-button').click();
    // Beside the workflow id, where the table shows it without scrolling sideways.
    for (const column of ['End', 'Start', 'Type', 'Run ID']) {
      await page.getByTestId('orderable-list-item-CycleOutcome-move-up-button').click();
      await page.getByTestId(`orderable-list-item-${column}-move-up-button`).waitFor();
    }
    await page.getByTestId('drawer-close-button').click();
    await page.getByText('Configure Workflows Table').waitFor({ state: 'hidden' });
    const cycleRow = page.locator('tr', { hasText: cycleId });
    await expect(page.getByRole('columnheader', { name: 'CycleOutcome' }).isVisible()).resolves.toBe(true);
    await cycleRow.getByText('failed', { exact: true }).waitFor();
    await expect(
      page.locator('tr', { hasText: stagedId }).getByText('unverified', { exact: true }).count(),
    ).resolves.toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-no-worker-list.png'), fullPage: true });

    for (const file of [
      'web-ui-no-worker-cycle-metadata.png',
      'web-ui-no-worker-cycle-memo.png',
      'web-ui-no-worker-staged-metadata.png',
      'web-ui-no-worker-staged-memo.png',
      'web-ui-no-worker-list.png',
    ]) {
      expect(fs.statSync(path.join(ARTIFACTS, file)).size).toBeGreaterThan(10_000);
    }
    await page.close();
  });
});
