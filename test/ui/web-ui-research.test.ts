import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, rowQuote, verifyScript } from '../../src/cli/demo/research-scripts';
import { researchWorkflowId } from '../../src/common/ids';
import { boardQuery } from '../../src/common/messages/research';
import { ARTIFACTS, frameShowing, launchChromium } from '../helpers/chromium';
import { researchTestWorker } from '../helpers/research';
import { testEnvironment, waitFor } from '../helpers/temporal';
import { bundleWorkflows } from '../helpers/worker';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let browser: Browser;
let web: FixtureWeb;

beforeAll(async () => {
  browser = await launchChromium();
  env = await testEnvironment();
  bundle = await bundleWorkflows();
  web = await serveFixtureWeb(fixturePages({ Hooli: { revenue: 'USD 6,543,210', employees: '777' } }));
});

afterAll(async () => {
  await web?.close();
  await browser?.close();
  await env?.teardown();
});

/** How many workflows the visibility `query` lists (what the UI's list shows for the same query). */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const workflow of env.client.workflow.list({ query })) ids.push(workflow.workflowId);
  return ids;
}

/** Opens the UI's workflow list filtered by `query` and waits until it has loaded its rows (or said it has none). */
async function openList(page: Page, uiUrl: string, query: string): Promise<void> {
  await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`, {
    waitUntil: 'domcontentloaded',
  });
  await page
    .getByText('research', { exact: true })
    .or(page.getByText(/^No Results$/))
    .first()
    .waitFor();
}

describe('Temporal Web UI', () => {
  it('shows a research run’s board by entry type, and lists the run under its outcome only', async () => {
    const uiUrl = process.env.TEMPORAL_TEST_UI_URL;
    if (!uiUrl) throw new Error('the test dev server has no Web UI (TEMPORAL_TEST_UI_URL is not set)');
    const routes = {
      [factRoute('Hooli', 'revenue')]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '6,543,210',
        rowQuote('revenue', 'USD 6,543,210'),
      ),
      [factRoute('Hooli', 'employees')]: [
        { tool: 'web_fetch', args: { url: `${web.base}/old` } },
        {
          tool: 'board_write',
          args: { status: 'VERIFIED', value: '777', source_url: `${web.base}/old`, step: 1, quote: 'employees 777' },
        },
      ],
      [factRoute('Hooli', 'employees', 2)]: verifyScript(
        web.base,
        'Hooli',
        '/hooli',
        '777',
        rowQuote('employees', '777'),
      ),
    };
    const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
    const runId = `ui-research-${process.pid}-${Date.now().toString(36)}`;
    const workflowId = researchWorkflowId(runId);
    const page = await browser.newPage({ viewport: { width: 1400, height: 2200 } });
    page.setDefaultTimeout(30_000);
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('research', {
        taskQueue,
        workflowId,
        args: [{ runId, question: 'Hooli figures', entities: ['Hooli'], fields: ['revenue', 'employees'] }],
      });
      expect((await handle.result()).outcome).toBe('complete');
      const board = await handle.query(boardQuery);
      // Two claims, one false claim recorded UNVERIFIED and re-delegated, two verified, the synthesis.
      expect(board.map((entry) => entry.type).sort()).toEqual(
        ['STRATEGY', 'PENDING', 'PENDING', 'PENDING', 'VERIFIED', 'VERIFIED', 'UNVERIFIED', 'SYNTHESIS'].sort(),
      );

      const { runId: executionId } = await handle.describe();
      await page.goto(
        `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${executionId}/history`,
        {
          waitUntil: 'domcontentloaded',
        },
      );
      await page.getByText('User Metadata', { exact: true }).click();
      // The details are the board by type (renderBoard), rendered as markdown in a frame of the UI's own.
      const details = await frameShowing(page, `research ${runId}`);
      const headings = await details.locator('h3').allInnerTexts();
      expect(headings.map((text) => text.trim())).toEqual([
        'STRATEGY (1)',
        'PENDING (3)',
        'VERIFIED (2)',
        'UNVERIFIED (1)',
        'SYNTHESIS (1)',
      ]);
      const text = await details.locator('body').innerText();
      expect(text).toContain(`complete, ${board.length} entries`);
      expect(text).toMatch(
        /e\d+ Hooli \/ revenue = 6,543,210 “revenue USD 6,543,210” from http:\/\/127\.0\.0\.1:\d+\/hooli · worker\/1/,
      );
      expect(text).toMatch(/the quote does not occur in/);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-research-details.png'), fullPage: true });

      // The list filtered by the research search attributes: under its outcome, and not under another.
      const complete = `ResearchRun="${runId}" AND CycleOutcome="complete"`;
      const incomplete = `ResearchRun="${runId}" AND CycleOutcome="incomplete"`;
      // Visibility lags the run's end by a moment; the UI reads the same store.
      await waitFor(async () => (await listed(complete)).length === 1);
      expect(await listed(incomplete)).toEqual([]);
      await openList(page, uiUrl, complete);
      await expect(page.getByText(workflowId).first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-research-list.png'), fullPage: true });
      await openList(page, uiUrl, incomplete);
      await expect(
        page
          .getByText(/^No Results$/)
          .first()
          .isVisible(),
      ).resolves.toBe(true);
      await expect(page.getByText(workflowId).count()).resolves.toBe(0);
    });
    for (const file of ['web-ui-research-details.png', 'web-ui-research-list.png']) {
      expect(fs.statSync(path.join(ARTIFACTS, file)).size).toBeGreaterThan(10_000);
    }
    await page.close();
  });
});
