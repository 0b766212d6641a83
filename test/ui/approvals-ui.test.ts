import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { Agents } from '../../src/clients/agents';
import { Approvals, type PendingCall } from '../../src/clients/approvals';
import { ARTIFACTS, frameShowing, launchChromium } from '../helpers/chromium';
import { testEnvironment, waitFor } from '../helpers/temporal';
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

/** The workflow ids visibility lists for `query`: what the UI's list shows for it. */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const workflow of env.client.workflow.list({ query })) ids.push(workflow.workflowId);
  return ids;
}

/** Opens the UI's workflow list with `query` in its URL, and waits until it shows `text` (a row, or no results). */
async function openList(page: Page, uiUrl: string, query: string, text: string | RegExp): Promise<void> {
  await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`, {
    waitUntil: 'domcontentloaded',
  });
  await page.getByText(text).first().waitFor({ timeout: 30_000 });
}

describe('Temporal Web UI', () => {
  it('finds an agent awaiting approval by its search attribute, and shows the pending call', async () => {
    const uiUrl = process.env.TEMPORAL_TEST_UI_URL;
    if (!uiUrl) throw new Error('the test dev server has no Web UI (TEMPORAL_TEST_UI_URL is not set)');
    const marker = `ui-approval-${process.pid}`;
    const { worker, taskQueue } = await scriptedWorker(env, bundle, [
      { tool: 'shell', args: { command: `echo ${marker}` } },
      { tool: 'done', args: { summary: 'listed' } },
    ]);
    const agentId = `ui-approvals-${process.pid}-${Date.now()}`;
    const agents = new Agents(env.client);
    const approvals = new Approvals(env.client);
    const target = { agentId, taskQueue };
    // Only this agent: the dev server is shared with other tests' agents, which may be waiting too.
    const waiting = `AwaitingApproval = true AND AgentId = '${agentId}'`;
    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    page.setDefaultTimeout(30_000);
    // The worker stays up while browsing: the UI asks the workflow for its current details with a query.
    await worker.runUntil(async () => {
      await agents.configure(target, { approve: ['shell'] });
      await agents.wake(target, { tasks: ['List the files'] });
      const [call] = await waitFor(
        () => approvals.list(agentId),
        (calls) => calls.length > 0,
        { what: 'the call to wait', timeoutMs: 60_000 },
      );
      const { cycleId, callId } = call as PendingCall;
      await waitFor(async () => (await listed(waiting)).includes(`agent/${agentId}`), {
        what: 'visibility to list the waiting agent',
        timeoutMs: 60_000,
      });

      await openList(page, uiUrl, waiting, `agent/${agentId}`);
      await expect(page.getByText(cycleId, { exact: true }).first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-approvals-list.png'), fullPage: true });

      // The agent's memo names the call too, readable with no worker running.
      await page.getByText(`agent/${agentId}`, { exact: true }).first().click();
      await page.getByText('Memo', { exact: true }).click();
      await page.getByText(`echo ${marker}`).first().waitFor();
      await expect(page.getByText(`"callId": "${callId}"`).first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-approvals-agent-memo.png'), fullPage: true });

      // The waiting cycle's current details: the pending call, above its scratchpad.
      await openList(page, uiUrl, waiting, cycleId);
      await page.getByText(cycleId, { exact: true }).first().click();
      await page.getByText('User Metadata', { exact: true }).click();
      const details = await frameShowing(page, marker);
      const text = await details.locator('body').innerText();
      expect(text).toContain(`Awaiting approval: call ${callId}: shell`);
      expect(text).toContain(`echo ${marker}`);
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-approvals-details.png'), fullPage: true });

      await approvals.decide(agentId, { callId, decision: 'approve', by: 'ui-test' });
      const result = await env.client.workflow.getHandle(cycleId).result();
      expect(result.outcome).toBe('completed');
      // Decided, the agent leaves the list: the attribute is cleared, not only set.
      await waitFor(async () => (await listed(waiting)).length === 0, { what: 'the list to clear', timeoutMs: 60_000 });
      await openList(page, uiUrl, waiting, /^No Results$/);
    });
    for (const file of [
      'web-ui-approvals-list.png',
      'web-ui-approvals-agent-memo.png',
      'web-ui-approvals-details.png',
    ]) {
      expect(fs.statSync(path.join(ARTIFACTS, file)).size).toBeGreaterThan(10_000);
    }
    await page.close();
  }, 180_000);
});
