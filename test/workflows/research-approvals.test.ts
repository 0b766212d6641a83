import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { RoutedScriptedProvider } from '../../src/activities/model/routed';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { factRoute, rowQuote } from '../../src/cli/demo/research-scripts';
import type { ResearchInput, ResearchStatus } from '../../src/core/research/run';
import type { ResearchWorkflow } from '../../src/common/workflow-types';
import { researchInvestigationId, researchWorkflowId, researchWorkerId } from '../../src/common/ids';
import { approvalWaitSignal, cycleDecideUpdate } from '../../src/common/messages/cycle';
import { researchStatusQuery } from '../../src/common/messages/research';
import { workerSinks } from '../../src/workers/create-worker';
import { testEnvironment, uniqueTaskQueue, waitFor } from '../helpers/temporal';
import { bundleWorkflows, sandboxOptions, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

jest.setTimeout(180_000);

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let web: FixtureWeb;

beforeAll(async () => {
  env = await testEnvironment();
  bundle = await bundleWorkflows();
  web = await serveFixtureWeb(fixturePages({ Acme: { revenue: 'USD 1,234,567', employees: '5,000' } }));
});

afterAll(async () => {
  await web?.close();
  await env?.teardown();
});

let runs = 0;
const runIdFor = (name: string) => `approvals-${name}-${Date.now().toString(36)}-${++runs}`;

/** A worker whose `web_fetch` asks for approval (`SCRATCHPAD_APPROVE=web_fetch`), its research workers scripted. */
async function approvingWorker(routes: Record<string, ScriptEntry[]>) {
  const model = new RoutedScriptedProvider(routes, 'research');
  const taskQueue = uniqueTaskQueue('research-approvals');
  const resolveModel = createModelResolver({
    defaultSpec: 'scripted:research',
    providers: { 'scripted:research': model },
  });
  // Loopback is allowed explicitly: the fixture web lives there.
  const tools = { ...sandboxOptions(), ...web.allowance, searchUrl: web.searchUrl };
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: createActivities({
      resolveModel,
      tools,
      observations: new MemoryObservationStore(),
      client: env.client,
      toolRegistry: new ToolRegistry([], undefined, undefined, ['web_fetch']),
    }),
    sinks: workerSinks(),
  });
  return { worker, taskQueue, model };
}

function start(client: Client, taskQueue: string, input: ResearchInput) {
  return client.workflow.start<ResearchWorkflow>('research', {
    taskQueue,
    workflowId: researchWorkflowId(input.runId),
    args: [input],
  });
}

/** The run's status once `accept` holds. */
async function statusWhen(
  handle: WorkflowHandle<ResearchWorkflow>,
  accept: (status: ResearchStatus) => boolean,
): Promise<ResearchStatus> {
  let last: ResearchStatus | undefined;
  await waitFor(async () => {
    last = await handle.query(researchStatusQuery).catch(() => undefined);
    return last !== undefined && accept(last);
  }, 90_000);
  return last as ResearchStatus;
}

const waitingIds = (status: ResearchStatus) => (status.approvals ?? []).map((call) => call.callId);
const acme = () => `${web.base}/acme`;
const fetchAcme = (): ScriptEntry => ({ tool: 'web_fetch', args: { url: acme() } });
const claimRevenue = (step: number): ScriptEntry => ({
  tool: 'board_write',
  args: {
    status: 'VERIFIED',
    value: '1,234,567',
    source_url: acme(),
    step,
    quote: rowQuote('revenue', 'USD 1,234,567'),
  },
});

describe("a research run's status says which fact waits for an approval (issue 19)", () => {
  it("names the worker's waiting web_fetch, keeps to real waits, and clears each as it is decided on the cycle", async () => {
    const route = factRoute('Acme', 'revenue');
    const routes = {
      [route]: [fetchAcme(), { tool: 'web_fetch', args: { url: `${web.base}/old` } }, claimRevenue(1)],
    };
    const { worker, taskQueue, model } = await approvingWorker(routes);
    const runId = runIdFor('status');
    const workerId = researchWorkerId(runId, 1);
    const cycleId = researchInvestigationId(workerId);
    const result = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Acme revenue',
        entities: ['Acme'],
        fields: ['revenue'],
      });
      const waiting = await statusWhen(handle, (status) => waitingIds(status).length > 0);
      expect(waiting.approvals).toEqual([
        {
          workerId,
          entity: 'Acme',
          field: 'revenue',
          callId: '1.1',
          tool: 'web_fetch',
          cycleId,
          args: JSON.stringify({ url: acme() }),
          requestedAt: expect.any(String),
          expiresAt: expect.any(String),
        },
      ]);
      expect(waiting.outcome).toBe('running');
      expect(web.requests).not.toContain('/acme');
      const { currentDetails } = (await handle.query('__temporal_workflow_metadata')) as { currentDetails: string };
      expect(currentDetails).toContain(`**Awaiting approval:** Acme / revenue: call 1.1 web\\_fetch`);
      expect(currentDetails).toContain(`in research/${runId}/worker/1/cycle`);

      // Signals have no validator: a malformed wait, one for no running worker's cycle, and a stray resolution are
      // dropped, and the real wait stands.
      await handle.signal('approvalWait', 42);
      await handle.signal('approvalWait', { kind: 'waiting', call: { callId: '1.1' } });
      const stranger = `research/${runId}-other/worker/1/cycle`;
      await handle.signal(approvalWaitSignal, {
        kind: 'waiting',
        call: {
          ...(waiting.approvals?.[0] as NonNullable<ResearchStatus['approvals']>[number]),
          cycleId: stranger,
          iteration: 1,
        },
      });
      await handle.signal(approvalWaitSignal, {
        kind: 'resolved',
        callId: '9.9',
        cycleId,
        decision: {
          callId: '9.9',
          cycleId,
          tool: 'web_fetch',
          decision: 'deny',
          by: 'mallory',
          at: '2026-01-01T00:00:00Z',
        },
      });
      expect((await handle.query(researchStatusQuery)).approvals?.map((call) => [call.cycleId, call.callId])).toEqual([
        [cycleId, '1.1'],
      ]);

      const cycle = env.client.workflow.getHandle(cycleId);
      await cycle.executeUpdate(cycleDecideUpdate, { args: [{ decision: 'approve', by: 'ada' }] });
      // The worker is still investigating: its next call waits, and the decided one is gone from the status.
      const next = await statusWhen(handle, (status) => waitingIds(status).join() === '2.1');
      expect(next.approvals?.[0]).toMatchObject({ entity: 'Acme', field: 'revenue', tool: 'web_fetch', cycleId });
      expect(web.requests).toContain('/acme');
      await cycle.executeUpdate(cycleDecideUpdate, {
        args: [{ callId: '2.1', decision: 'deny', reason: 'one page is enough', by: 'ada' }],
      });
      const done = await handle.result();
      const after = await handle.query(researchStatusQuery);
      expect(after.approvals).toBeUndefined();
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails: string };
      expect(metadata.currentDetails).not.toContain('Awaiting approval');
      return done;
    });
    expect(result.outcome).toBe('complete');
    expect(web.requests).not.toContain('/old');
    // The model's third request carries the denial, as an error observation it can act on.
    expect(JSON.stringify(model.requestsFor(route)[2]?.messages)).toContain('denied by ada: one page is enough');
  });

  it('still names the waiting fact after the supervisor continues as new during the wait', async () => {
    const routes = { [factRoute('Acme', 'revenue')]: [fetchAcme(), claimRevenue(1)] };
    const { worker, taskQueue } = await approvingWorker(routes);
    const runId = runIdFor('handover');
    const cycleId = researchInvestigationId(researchWorkerId(runId, 1));
    const result = await worker.runUntil(async () => {
      const handle = await start(env.client, taskQueue, {
        runId,
        question: 'Acme revenue',
        entities: ['Acme'],
        fields: ['revenue'],
        continueAsNewEvents: 40,
      });
      await statusWhen(handle, (status) => waitingIds(status).length === 1);
      const { runId: waitedIn } = await handle.describe();
      // Dropped signals still grow the history: enough of them make the supervisor continue as new.
      for (let sent = 0; (await handle.describe()).runId === waitedIn; sent++) {
        if (sent > 100) throw new Error('the supervisor did not continue as new');
        await handle.signal('approvalWait', { kind: 'noise', sent });
      }
      const handedOver = await statusWhen(handle, () => true);
      expect(handedOver.approvals).toEqual([
        expect.objectContaining({ entity: 'Acme', field: 'revenue', callId: '1.1', tool: 'web_fetch', cycleId }),
      ]);
      await env.client.workflow.getHandle(cycleId).executeUpdate(cycleDecideUpdate, {
        args: [{ decision: 'approve', by: 'ada' }],
      });
      return handle.result();
    });
    expect(result.outcome).toBe('complete');
    expect(result.continuedAsNew).toBeGreaterThanOrEqual(1);
  });
});
