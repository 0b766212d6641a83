import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { RoutedScriptedProvider } from '../../src/activities/model/routed';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { type FixtureWeb, fixturePages, serveFixtureWeb } from '../../src/cli/demo/fixture-web';
import { DEMO_COMPANIES, factRoute, planRoute, rowQuote, verifyScript } from '../../src/cli/demo/research-scripts';
import type { BoardEntry, EntryOf } from '../../src/core/research/board';
import type { ResearchInput, ResearchResult } from '../../src/core/research/run';
import { MAX_PLANNED_FACTS } from '../../src/core/research/plan';
import { researchWorkflowId } from '../../src/common/ids';
import { researchDirectiveSignal, researchStatusQuery } from '../../src/common/messages/research';
import { useWorkflowEnvironment } from '../helpers/worker';
import { researchTestWorker } from '../helpers/research';

jest.setTimeout(120_000);

const COMPANIES = DEMO_COMPANIES;
const SUPERVISOR = 'scripted:supervisor';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
let web: FixtureWeb;

useWorkflowEnvironment((setup) => ({ env, bundle } = setup));
beforeAll(async () => {
  web = await serveFixtureWeb(fixturePages(COMPANIES));
});
afterAll(() => web?.close());

let runs = 0;
function runIdFor(name: string): string {
  runs += 1;
  return `${name}-${Date.now().toString(36)}-${runs}`;
}

/**
 * Runs `input` with the supervisor's model scripted by `plan` (routed by the question) and the workers' by `routes`.
 * Returns the result, the status after the run, the children the supervisor started, and both models.
 */
async function planAndRun(
  input: Omit<ResearchInput, 'runId'>,
  plan: ScriptEntry[],
  routes: Record<string, ScriptEntry[]> = {},
  during?: (handle: WorkflowHandle) => Promise<void>,
) {
  const supervisor = new RoutedScriptedProvider({ [planRoute(input.question)]: plan }, 'supervisor');
  const { worker, taskQueue, model } = await researchTestWorker(env, bundle, web, routes, {
    providers: { [SUPERVISOR]: supervisor },
  });
  const runId = runIdFor('plan');
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('research', {
      taskQueue,
      workflowId: researchWorkflowId(runId),
      args: [{ runId, model: SUPERVISOR, ...input }],
    });
    await during?.(handle);
    const result: ResearchResult = await handle.result();
    const history = await handle.fetchHistory();
    const children = (history.events ?? []).flatMap(
      (event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    );
    const status = await handle.query(researchStatusQuery);
    return {
      result,
      status,
      children,
      supervisor,
      workers: model,
      planRequests: supervisor.requestsFor(planRoute(input.question)),
    };
  });
}

const strategyOf = (board: BoardEntry[]) =>
  board.filter((entry): entry is EntryOf<'STRATEGY'> => entry.type === 'STRATEGY');

describe('the supervisor writes STRATEGY from the question', () => {
  it("plans entities × fields with its own model, and the run reaches SYNTHESIS over the model's facts", async () => {
    const b = web.base;
    const question = 'How large are Acme and Globex?';
    const plan: ScriptEntry[] = [
      {
        tool: 'plan_research',
        args: {
          goal: 'Revenue and headcount of Acme and Globex',
          entities: ['Acme', ' Globex ', 'acme'],
          fields: ['revenue', 'employees'],
        },
      },
    ];
    const routes = {
      [factRoute('Acme', 'revenue')]: verifyScript(b, 'Acme', '/acme', '1234567', rowQuote('revenue', 'USD 1,234,567')),
      [factRoute('Acme', 'employees')]: verifyScript(b, 'Acme', '/acme', '5000', rowQuote('employees', '5,000')),
      [factRoute('Globex', 'revenue')]: verifyScript(
        b,
        'Globex',
        '/globex',
        '890,000',
        rowQuote('revenue', 'USD 890,000'),
      ),
      [factRoute('Globex', 'employees')]: verifyScript(b, 'Globex', '/globex', '1,200', rowQuote('employees', '1,200')),
    };
    const { result, children, planRequests, workers } = await planAndRun({ question }, plan, routes);

    expect(result.outcome).toBe('complete');
    const [strategy, ...revisions] = strategyOf(result.board);
    expect(revisions).toHaveLength(0);
    expect(result.board[0]).toBe(strategy);
    expect(strategy?.author.role).toBe('supervisor');
    expect(strategy?.body).toMatchObject({
      goal: 'Revenue and headcount of Acme and Globex',
      entities: ['Acme', 'Globex'],
      fields: ['revenue', 'employees'],
    });
    expect(strategy?.body.assigned.map((a) => `${a.entity}/${a.field}`)).toEqual([
      'Acme/revenue',
      'Acme/employees',
      'Globex/revenue',
      'Globex/employees',
    ]);
    expect(children).toHaveLength(4);
    expect(result.citations).toHaveLength(4);
    // One planning call, to the supervisor's model, forcing the plan tool; the workers' model never planned.
    expect(planRequests).toHaveLength(1);
    expect(planRequests[0]).toMatchObject({
      system: 'research_strategy',
      tools: ['plan_research'],
      toolChoice: { name: 'plan_research' },
    });
    expect(planRequests[0]?.messages[0]?.content).toContain(`at most ${MAX_PLANNED_FACTS} facts`);
    // The planning call counts in the run's usage beside the workers'.
    expect(Object.keys(result.usage?.usageByModel ?? {})).toContain(SUPERVISOR);
    // The workers' briefs carry the planned goal.
    expect(workers.requestsFor(factRoute('Acme', 'revenue'))[0]?.messages[0]?.content).toContain(
      'Goal: Revenue and headcount of Acme and Globex',
    );
  });

  it('keeps the entities the user gave, plans only the fields, and recovers from one malformed reply', async () => {
    const b = web.base;
    const plan: ScriptEntry[] = [
      { text: 'I think revenue matters most.' },
      // The model call's one corrective retry misses as well, so the supervisor refuses the reply.
      { text: 'I think revenue matters most.' },
      { tool: 'plan_research', args: { goal: 'Acme revenue', entities: ['Initech', 'Umbrella'], fields: ['revenue'] } },
    ];
    const routes = {
      [factRoute('Acme', 'revenue')]: verifyScript(
        b,
        'Acme',
        '/acme',
        '1,234,567',
        rowQuote('revenue', 'USD 1,234,567'),
      ),
    };
    const { result, planRequests } = await planAndRun(
      { question: 'What does Acme earn?', entities: ['Acme'] },
      plan,
      routes,
    );

    expect(result.outcome).toBe('complete');
    expect(strategyOf(result.board)[0]?.body).toMatchObject({ entities: ['Acme'], fields: ['revenue'] });
    expect(planRequests).toHaveLength(3);
    expect(planRequests[0]?.messages[0]?.content).toContain('Entities (given by the user; keep them): Acme');
    expect(planRequests[1]?.messages.at(-1)?.content).toContain(
      'Your last reply did not call the tool "plan_research"',
    );
    const retry = planRequests[2]?.messages ?? [];
    expect(retry.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(retry[1]?.content).toBe('I think revenue matters most.');
    expect(retry[2]?.content).toMatch(/^That plan was refused: no plan_research call in the reply/);
  });

  it('keeps a directive sent while the supervisor plans: it lands after STRATEGY and is read into it', async () => {
    const b = web.base;
    const plan: ScriptEntry[] = [
      // Slow enough that the directive surely arrives before the plan does.
      { tool: 'plan_research', args: { entities: ['Acme'], fields: ['revenue'] }, delayMs: 1500 },
    ];
    const routes = {
      [factRoute('Acme', 'revenue')]: verifyScript(
        b,
        'Acme',
        '/acme',
        '1,234,567',
        rowQuote('revenue', 'USD 1,234,567'),
      ),
    };
    const { result } = await planAndRun({ question: 'What does Acme earn?' }, plan, routes, async (handle) => {
      await handle.signal(researchDirectiveSignal, { text: 'Prefer the annual report', by: 'ada' });
    });

    expect(result.outcome).toBe('complete');
    const types = result.board.map((entry) => entry.type);
    expect(types.slice(0, 3)).toEqual(['STRATEGY', 'USER_DIRECTIVE', 'STRATEGY']);
    expect(result.board[1]).toMatchObject({
      author: { role: 'user', id: 'ada' },
      body: { text: 'Prefer the annual report' },
    });
    expect(strategyOf(result.board)[1]?.body.directives).toEqual(['Prefer the annual report']);
  });

  it('ends incomplete with the reason and starts no worker when the plan is hostile twice', async () => {
    const many = Array.from({ length: 500 }, (_, i) => `Company ${i}`);
    const plan: ScriptEntry[] = [
      { tool: 'plan_research', args: { goal: 'everything', entities: many, fields: ['revenue'] } },
      { tool: 'plan_research', args: { goal: 7, entities: ['Acme'], fields: [] } },
    ];
    const { result, status, children, planRequests, workers } = await planAndRun({ question: 'All companies?' }, plan);

    expect(result.outcome).toBe('incomplete');
    expect(result.answer).toBeUndefined();
    expect(result.board).toEqual([]);
    expect(children).toEqual([]);
    expect(status.workersStarted).toBe(0);
    const reason =
      "STRATEGY: not written: the supervisor's plan was refused 2 times; last: goal must be a string, got a number";
    expect(result.missing).toEqual([reason]);
    expect(status.missing).toEqual([reason]);
    expect(status.outcome).toBe('incomplete');
    expect(planRequests[1]?.messages[2]?.content).toContain('entities has 500 items; at most 64');
    // The refused reply is quoted back capped, not whole.
    expect(planRequests[1]?.messages[1]?.content.length).toBeLessThanOrEqual(2000);
    expect(workers.requestsFor(factRoute('Company 0', 'revenue'))).toHaveLength(0);
  });

  it('refuses a plan over the fact cap, and ends incomplete when the model fails', async () => {
    const entities = Array.from({ length: 20 }, (_, i) => `E${i}`);
    const overCap = { tool: 'plan_research', args: { entities, fields: ['a', 'b', 'c', 'd'] } };
    const capped = await planAndRun({ question: 'Twenty companies, four fields?' }, [overCap, overCap]);
    expect(capped.result.outcome).toBe('incomplete');
    expect(capped.result.missing[0]).toContain(
      `20 entities × 4 fields = 80 facts; a planned run has at most ${MAX_PLANNED_FACTS}`,
    );
    expect(capped.children).toEqual([]);

    const failing = await planAndRun({ question: 'No model?' }, [
      { error: { type: 'ModelError.Auth', message: '401 invalid api key', nonRetryable: true } },
    ]);
    expect(failing.result.outcome).toBe('incomplete');
    expect(failing.result.missing).toEqual([
      "STRATEGY: not written: the supervisor's model failed: ModelError.Auth: 401 invalid api key",
    ]);
    expect(failing.children).toEqual([]);
  });
});
