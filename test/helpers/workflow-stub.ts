/*
 * A stand-in for '@temporalio/workflow', so the workflows' state classes run in a unit test with no server:
 *
 *   jest.mock('@temporalio/workflow', () => jest.requireActual('../helpers/workflow-stub').workflowModule());
 *
 * What they publish (memo, search attributes, log lines) is recorded on `workflowStub`; children and activities are
 * answered by the jest functions on it; conditions are checked when the test calls `settle()`, as a worker checks
 * them after each activation. Everything else is the real module (ApplicationFailure, ParentClosePolicy).
 */

type Waiter = { test: () => boolean; resolve: (value: boolean) => void };

/** What the code under test did through the stubbed module, and how its children and activities answer. */
export const workflowStub = {
  memos: [] as Record<string, unknown>[],
  searchAttributes: [] as { key: { name: string }; value: unknown }[],
  warnings: [] as { message: string; attributes?: unknown }[],
  info: { continueAsNewSuggested: false, workflowId: 'test-workflow', historyLength: 1 },
  startChild: jest.fn(),
  executeChild: jest.fn(),
  /** Activities by name, as `proxyActivities` returns them. */
  activities: {} as Record<string, jest.Mock>,
  waiters: [] as Waiter[],
};

/** Forgets what earlier tests recorded and how they answered. */
export function resetWorkflowStub(): void {
  workflowStub.memos.length = 0;
  workflowStub.searchAttributes.length = 0;
  workflowStub.warnings.length = 0;
  workflowStub.waiters.length = 0;
  workflowStub.info = { continueAsNewSuggested: false, workflowId: 'test-workflow', historyLength: 1 };
  workflowStub.startChild.mockReset();
  workflowStub.executeChild.mockReset();
  workflowStub.activities = {};
}

/** Runs pending promise callbacks and unblocks every condition that holds, until none does. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 1000; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    const ready = workflowStub.waiters.filter((waiter) => waiter.test());
    if (ready.length === 0) return;
    workflowStub.waiters = workflowStub.waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve(true);
  }
  throw new Error('conditions kept unblocking each other for 1000 rounds');
}

/** The module `jest.mock` puts in place of '@temporalio/workflow'. */
export function workflowModule(): Record<string, unknown> {
  const actual = jest.requireActual('@temporalio/workflow');
  // The real CancellationScope needs the workflow sandbox: this one runs its work and, cancelled, rejects the wait with
  // a CancelledFailure, as a cancelled child's result does.
  class CancellationScope {
    private reject: (error: Error) => void = () => undefined;
    private readonly cancelled = new Promise<never>((_, reject) => (this.reject = reject));
    run<T>(work: () => Promise<T>): Promise<T> {
      return Promise.race([work(), this.cancelled]);
    }
    cancel(): void {
      this.reject(new actual.CancelledFailure('Cancellation scope cancelled'));
    }
  }
  const record = (level: string) => (message: string, attributes?: unknown) => {
    if (level === 'warn') workflowStub.warnings.push({ message, attributes });
  };
  return {
    ...actual,
    // A timeout never fires here: a test that needs it settles the condition itself.
    condition: (test: () => boolean) => new Promise<boolean>((resolve) => workflowStub.waiters.push({ test, resolve })),
    upsertMemo: (memo: Record<string, unknown>) => workflowStub.memos.push(memo),
    upsertSearchAttributes: (attributes: { key: { name: string }; value: unknown }[]) =>
      workflowStub.searchAttributes.push(...attributes),
    setCurrentDetails: () => undefined,
    log: {
      trace: record('trace'),
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    },
    workflowInfo: () => workflowStub.info,
    CancellationScope,
    // Handlers are the workflow's to register; no message reaches them here.
    setHandler: () => undefined,
    startChild: (...args: unknown[]) => workflowStub.startChild(...args),
    executeChild: (...args: unknown[]) => workflowStub.executeChild(...args),
    proxyActivities: () =>
      new Proxy(
        {},
        {
          get: (_target, name: string) => (input: unknown) => {
            const activity = workflowStub.activities[name];
            if (!activity) throw new Error(`the test gave no answer for activity ${name}`);
            return activity(input);
          },
        },
      ),
  };
}
