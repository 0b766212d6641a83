import * as http from 'node:http';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { Agents } from '../../src/clients/agents';
import { Approvals } from '../../src/clients/approvals';
import { cycleWorkflowId } from '../../src/common/ids';
import { type RunningConsole, startConsole } from '../../src/console/server';
import { startStaged } from '../../src/clients/staged-runs';
import { ResearchRuns } from '../../src/clients/research-runs';
import { fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, verifyScript } from '../../src/cli/demo/research-scripts';
import { researchTestWorker } from '../helpers/research';
import { ARTIFACTS, launchChromium } from '../helpers/chromium';
import { uniqueId, waitFor } from '../helpers/temporal';
import { type ScriptedWorker, scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let browser: Browser;
let running: RunningConsole;
let scripted: ScriptedWorker;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const FACTS = Array.from({ length: 30 }, (_, n) => `Ledger fact ${n}: the west vault holds crate ${n * 7}.`).join('\n');

const SCRIPT = [
  // A chat turn: respond, then reflect adds a line to Known.
  { text: 'Noted: ZEBRA-7.' },
  { tool: 'update_scratchpad', args: { understanding_known: 'The code word is ZEBRA-7' } },
  // A task cycle whose shell call a person approves, then one whose call a person denies.
  { tool: 'shell', args: { command: 'echo approved-by-a-person' } },
  { tool: 'done', args: { summary: 'ran it' } },
  { tool: 'shell', args: { command: 'echo never-runs' } },
  { tool: 'done', args: { summary: 'gave up' } },
  // A turn that outgrows a small budget: the oldest of Known goes to the archive, a pointer in its place.
  { text: 'Filed.' },
  { tool: 'update_scratchpad', args: { understanding_known: `APPEND: ${FACTS}` } },
];

beforeAll(async () => {
  browser = await launchChromium();
  scripted = await scriptedWorker(env, bundle, SCRIPT, 'console');
  running = await startConsole({
    client: env.client,
    observations: scripted.observations,
    webUi: (id) => `http://ui.invalid/${id}`,
  });
});

afterAll(async () => {
  await running?.close();
  await browser?.close();
});

const port = () => new URL(running.url).port;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}.png`), fullPage: true });
}

/** A raw request to the console, with the headers a browser could not be made to send. */
function request(
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port(), method, path: pathname, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('scratchpad console', () => {
  const agentId = uniqueId('console');

  it('shows the agents, an agent’s memory, a cycle’s message and what it added, and lets a person decide calls', async () => {
    const agents = new Agents(env.client);
    const target = { agentId, taskQueue: scripted.taskQueue };
    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    page.setDefaultTimeout(30_000);
    await scripted.worker.runUntil(async () => {
      const answer = await agents.send(target, { message: 'Remember the code word ZEBRA-7' });
      await agents.waitForCycle(target, answer.cycleId);

      await page.goto(running.url);
      expect(new URL(page.url()).search).toBe('');
      await page.getByRole('link', { name: agentId }).waitFor();
      await shot(page, 'agents');

      await page.getByRole('link', { name: agentId }).click();
      await page.getByText('The code word is ZEBRA-7').first().waitFor();
      expect(await page.locator('tr', { hasText: 'replied after 1 iteration' }).textContent()).toContain(
        'understanding_known +',
      );
      await shot(page, 'agent');

      await page.getByRole('link', { name: '1', exact: true }).click();
      await page.getByText('Remember the code word ZEBRA-7').first().waitFor();
      const added = page.locator('.add', { hasText: 'The code word is ZEBRA-7' });
      expect(await added.textContent()).toContain('[update 2.1]');
      await shot(page, 'cycle');

      // A call under `ask`: it waits until a person presses Approve on /approvals.
      await agents.configure(target, { approve: ['shell'] });
      await agents.wake(target, { tasks: ['say hello from the shell'] });
      const approvals = new Approvals(env.client);
      await waitFor(async () => (await approvals.list(agentId)).length > 0, { what: 'the call to wait' });
      await page.goto(`http://127.0.0.1:${port()}/approvals`);
      const row = page.locator('tr', { hasText: 'approved-by-a-person' });
      await shot(page, 'approvals');
      await row.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.getByText('Decision sent for call').waitFor();
      const approvedCycle = cycleWorkflowId(agentId, 2);
      await agents.waitForCycle(target, approvedCycle);
      const ran = (await env.client.workflow.getHandle(approvedCycle).fetchHistory()).events ?? [];
      expect(ran.filter((event) => event.activityTaskCompletedEventAttributes).length).toBeGreaterThan(1);

      // Deny with a reason: the model's next request carries it.
      await agents.wake(target, { tasks: ['try the shell again'] });
      await waitFor(async () => (await approvals.list(agentId)).length > 0, { what: 'the second call to wait' });
      await page.goto(`http://127.0.0.1:${port()}/approvals`);
      const second = page.locator('tr', { hasText: 'never-runs' });
      await second.locator('input[name=reason]').fill('not on a Friday');
      await second.getByRole('button', { name: 'Deny' }).click();
      await page.getByText('Decision sent for call').waitFor();
      await agents.waitForCycle(target, cycleWorkflowId(agentId, 3));
      const sent = scripted.model.requests.map((sentRequest) => JSON.stringify(sentRequest.messages)).join('\n');
      expect(sent).toContain('not on a Friday');

      // Archive pointers open the archived text.
      await agents.configure(target, { budgetChars: 1000 });
      const filed = await agents.send(target, { message: 'File these facts' });
      await agents.waitForCycle(target, filed.cycleId);
      await page.goto(`http://127.0.0.1:${port()}/agents/${agentId}`);
      await page
        .getByRole('link', { name: /\[ARCHIVED \d+ older chars/ })
        .first()
        .click();
      await page.getByText('The code word is ZEBRA-7').first().waitFor();
      expect(page.url()).toMatch(/\/archive\/[0-9a-f]{16}$/);
      await shot(page, 'archive');
    });

    // No worker runs now: every page still reads from the server alone.
    await page.goto(`http://127.0.0.1:${port()}/agents/${agentId}`);
    await page.getByText('Ledger fact 29').first().waitFor();
    await page.goto(`http://127.0.0.1:${port()}/agents/${agentId}/cycles/2`);
    await page.getByText('approved-by-a-person').first().waitFor();
    expect(await page.locator('.add', { hasText: 'approved-by-a-person' }).textContent()).toContain('[tool shell]');
    expect(await page.locator('li', { hasText: 'by console' }).textContent()).toContain('approve');
    await shot(page, 'cycle-no-worker');
    await page.goto(`http://127.0.0.1:${port()}/agents/${agentId}/cycles/3`);
    expect(await page.locator('li', { hasText: 'by console' }).textContent()).toContain('deny');
    await page.close();
  });

  it('shows a staged run: its plan, stages, files and verification output', async () => {
    const staged = await scriptedWorker(
      env,
      bundle,
      [
        { tool: 'fs_write', args: { path: 'greeting.txt', content: 'hello from a stage' } },
        { tool: 'done', args: { summary: 'wrote the greeting' } },
      ],
      'console-staged',
    );
    const owner = uniqueId('console-staged');
    const result = await staged.worker.runUntil(async () => {
      const handle = await startStaged(env.client, staged.taskQueue, {
        agentId: owner,
        task: 'Write a greeting file',
        staged: false,
        verify: 'cat greeting.txt',
      });
      return handle.result();
    });
    expect(result.outcome).toBe('verified');
    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    await page.goto(running.url.replace('/?', `/staged/${owner}/1?`));
    await page.getByText('greeting.txt').first().waitFor();
    expect(await page.locator('.section', { hasText: 'cat greeting.txt' }).textContent()).toContain(
      'hello from a stage',
    );
    await shot(page, 'staged');
    await page.goto(`http://127.0.0.1:${port()}/`);
    await page.getByRole('link', { name: `staged/${owner}/1` }).waitFor();
    await page.close();
  });

  it('shows a research run by fact: state, value, quote, URL and worker, with its synthesis', async () => {
    const web = await serveFixtureWeb(fixturePages({ Globex: { revenue: 'USD 890,000' } }));
    try {
      const routes = {
        [factRoute('Globex', 'revenue')]: verifyScript(web.base, 'Globex', '/globex', '890,000', 'revenue USD 890,000'),
      };
      const { worker, taskQueue } = await researchTestWorker(env, bundle, web, routes);
      const runId = uniqueId('console-research');
      const input = { runId, question: 'Globex revenue', entities: ['Globex'], fields: ['revenue'] };
      const result = await worker.runUntil(async () =>
        (await new ResearchRuns(env.client).start(input, { taskQueue })).result(),
      );
      expect(result.outcome).toBe('complete');
      const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
      await page.goto(running.url.replace('/?', `/research/${runId}?`));
      const row = page.locator('tr', { hasText: 'Globex / revenue' });
      await row.waitFor();
      const text = await row.textContent();
      for (const part of ['VERIFIED', '890,000', 'revenue USD 890,000', `${web.base}/globex`])
        expect(text).toContain(part);
      await page.getByText(/^cites e\d+/).waitFor();
      await shot(page, 'research');
      await page.close();
    } finally {
      await web.close();
    }
  });

  it('refuses a request without the token, for another Host, and a cross-site or CSRF-less POST', async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    const response = await page.goto(`http://127.0.0.1:${port()}/`);
    expect(response?.status()).toBe(401);
    await fresh.close();

    const token = new URL(running.url).searchParams.get('token') ?? '';
    const cookie = `scratchpad_console_${port()}=${token}`;
    const host = `127.0.0.1:${port()}`;
    expect((await request('GET', '/', { host: `evil.example:${port()}`, cookie })).status).toBe(421);
    expect((await request('GET', '/', { host, cookie: `scratchpad_console_${port()}=wrong` })).status).toBe(401);
    const form = { host, cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const crossSite = await request(
      'POST',
      `/agents/${agentId}/directive`,
      { ...form, origin: 'http://evil.example' },
      'text=hi',
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain('cross-site');
    const noCsrf = await request('POST', `/agents/${agentId}/directive`, form, 'text=hi');
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.text).toContain('CSRF');
  });
});
