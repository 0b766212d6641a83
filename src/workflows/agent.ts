import {
  ApplicationFailure,
  type ChildWorkflowHandle,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  startChild,
  upsertMemo,
  upsertSearchAttributes,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import {
  type AgentInput,
  AgentInputSchema,
  type AgentSettings,
  AgentSettingsSchema,
  type CycleRecord,
  type DirectiveRecord,
  EnqueueArgsSchema,
  InjectArgsSchema,
  RunCycleArgsSchema,
  SendArgsSchema,
  WakeArgsSchema,
} from '../core/agent';
import { usageCost } from '../core/cost';
import type { CycleInput, CycleResult, Trigger } from '../core/cycle';
import { ZERO_USAGE, type Usage, addUsage } from '../core/model';
import { type Scratchpad, ScratchpadSchema, defaultScratchpad, enqueueTasks, hasWork } from '../core/scratchpad';
import { safeApply } from '../core/update';
import { agentIdKey, cycleCountKey, lastOutcomeKey } from '../common/search-attributes';
import { agentCycle } from './agent-cycle';
import {
  configureUpdate,
  cyclesQuery,
  directiveSignal,
  directivesQuery,
  enqueueUpdate,
  importUpdate,
  injectUpdate,
  runCycleUpdate,
  scratchpadQuery,
  sendUpdate,
  statusQuery,
  wakeSignal,
} from '../common/agent-messages';
import { failureMessage } from '../common/failure';
import { cycleWorkflowId } from '../common/ids';

const KEPT_CYCLES = 50;
const KEPT_DIRECTIVES = 100;

type Work =
  | { kind: 'chat'; message: string }
  | { kind: 'task'; trigger: Trigger; maxIterations?: number; model?: string; priorScratchpad?: string };
type WorkItem = Work & { id: number };

interface Finished {
  record: CycleRecord;
  reply?: string;
}

/** Runs a synchronous safeParse in a validator so bad arguments are rejected before they reach history. */
function validate(schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
}

function totalUsage(byModel: Record<string, Usage>): Usage {
  return Object.values(byModel).reduce(addUsage, ZERO_USAGE);
}

function totalCost(byModel: Record<string, Usage>): number | null {
  let sum = 0;
  for (const [model, usage] of Object.entries(byModel)) {
    const cost = usageCost(model, usage);
    if (cost === undefined) return null;
    sum += cost;
  }
  return sum;
}

function summaryOf(item: WorkItem, state: Scratchpad): string {
  const text = item.kind === 'chat' ? `chat: ${item.message}` : `${item.trigger}: ${state.current_task ?? 'no task'}`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/**
 * The durable home of one agent (seed 000's `active.yaml`): runs its cycles one at a time as
 * child `agentCycle` workflows, each fed the previous after-state, and continues-as-new with its memory.
 */
export async function agent(rawInput: AgentInput): Promise<void> {
  const parsed = AgentInputSchema.safeParse(rawInput);
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(`invalid agent input: ${parsed.error.message}`, 'AgentError.BadInput');
  const input = parsed.data;
  const { agentId } = input;
  const carried = input.carried;

  let settings: AgentSettings = input.settings;
  let scratchpad: Scratchpad = input.scratchpad ?? defaultScratchpad(input.purpose);
  let cycleCount = carried?.cycleCount ?? 0;
  const cycles: CycleRecord[] = carried?.cycles ?? [];
  const heldDirectives: string[] = carried?.heldDirectives ?? [];
  const directiveLog: DirectiveRecord[] = carried?.directiveLog ?? [];
  const usageByModel: Record<string, Usage> = carried?.usageByModel ?? {};
  const runs = (carried?.runs ?? 0) + 1;
  const queue: WorkItem[] = [];
  const finished = new Map<number, Finished>();
  const awaited = new Set<number>();
  // Changes to the scratchpad requested while a cycle runs wait for its result, or they would be overwritten.
  const deferred: (() => void)[] = [];
  let running: { cycleId: string; trigger: Trigger; handle?: ChildWorkflowHandle<typeof agentCycle> } | null = null;
  let forwarded: string[] = [];
  let nextItemId = 1;
  let cyclesThisRun = 0;

  // The memo lets `show` and `snapshots` read the active scratchpad from the server with no worker running.
  const persist = () => upsertMemo({ scratchpad });
  const mutate = (change: () => void) => {
    if (running) {
      deferred.push(change);
      return;
    }
    change();
    persist();
  };
  const mutated = async <T>(change: () => T): Promise<T> => {
    let result: { value: T } | undefined;
    mutate(() => (result = { value: change() }));
    await condition(() => result !== undefined);
    return (result as { value: T }).value;
  };
  const enqueueWork = async (item: Work): Promise<Finished> => {
    const id = nextItemId++;
    awaited.add(id);
    queue.push({ ...item, id });
    await condition(() => finished.has(id));
    awaited.delete(id);
    const result = finished.get(id) as Finished;
    finished.delete(id);
    return result;
  };
  const wake = (trigger: Trigger) => {
    if (!queue.some((item) => item.kind === 'task')) queue.push({ id: nextItemId++, kind: 'task', trigger });
  };

  setHandler(scratchpadQuery, () => scratchpad);
  setHandler(cyclesQuery, () => cycles);
  setHandler(directivesQuery, () => directiveLog);
  setHandler(statusQuery, () => ({
    agentId,
    cycleCount,
    running: running && { cycleId: running.cycleId, trigger: running.trigger },
    queued: queue.length,
    heldDirectives: [...heldDirectives],
    usage: totalUsage(usageByModel),
    costUsd: totalCost(usageByModel),
    settings,
    runs,
  }));

  setHandler(
    sendUpdate,
    async (args) => {
      const { message } = SendArgsSchema.parse(args);
      const result = await enqueueWork({ kind: 'chat', message });
      const { cycleId, outcome, error } = result.record;
      return { reply: result.reply ?? '', cycleId, outcome, ...(error ? { error } : {}) };
    },
    { validator: (args) => validate(SendArgsSchema, args) },
  );
  setHandler(
    runCycleUpdate,
    async (args) => {
      const { tasks, maxIterations, model, priorScratchpad } = RunCycleArgsSchema.parse(args);
      if (tasks.length > 0) await mutated(() => (scratchpad = enqueueTasks(scratchpad, tasks)));
      return (await enqueueWork({ kind: 'task', trigger: 'task', maxIterations, model, priorScratchpad })).record;
    },
    { validator: (args) => validate(RunCycleArgsSchema, args) },
  );
  setHandler(
    enqueueUpdate,
    async (args) => {
      const { tasks, goals } = EnqueueArgsSchema.parse(args);
      return mutated(() => {
        scratchpad = enqueueTasks(scratchpad, tasks, goals);
        return { current_task: scratchpad.current_task, pending_actions: scratchpad.pending_actions };
      });
    },
    { validator: (args) => validate(EnqueueArgsSchema, args) },
  );
  setHandler(
    injectUpdate,
    async (args) => {
      const { section, content } = InjectArgsSchema.parse(args);
      return mutated(() => {
        const outcome = safeApply(scratchpad, { [section]: content });
        // Validated against the state of the moment; a cycle may have changed it since, so report rather than throw.
        if (!outcome.ok) return `not applied: ${outcome.error}`;
        scratchpad = outcome.state;
        return JSON.stringify((outcome.state as Record<string, unknown>)[section] ?? content);
      });
    },
    {
      validator: (args) => {
        validate(InjectArgsSchema, args);
        const outcome = safeApply(scratchpad, { [args.section]: args.content });
        if (!outcome.ok) throw new Error(outcome.error);
      },
    },
  );
  setHandler(
    importUpdate,
    async (state) => {
      const next = ScratchpadSchema.parse(state);
      await mutated(() => (scratchpad = next));
    },
    { validator: (state) => validate(ScratchpadSchema, state) },
  );
  setHandler(configureUpdate, (changes) => (settings = AgentSettingsSchema.parse({ ...settings, ...changes })), {
    validator: (changes) => validate(AgentSettingsSchema, { ...settings, ...changes }),
  });
  setHandler(wakeSignal, (args) => {
    const parsedWake = WakeArgsSchema.safeParse(args ?? {});
    // A signal has no caller to answer: a bad one is logged (visible in the worker's log) and wakes nothing.
    if (!parsedWake.success) {
      log.warn('ignored a wake signal with invalid arguments', { error: z.prettifyError(parsedWake.error) });
      return;
    }
    const { tasks, trigger } = parsedWake.data;
    mutate(() => {
      // A schedule repeats its tasks every tick: one already queued is not queued again.
      const queued = [scratchpad.current_task, ...scratchpad.pending_actions];
      const fresh = tasks.filter((task) => !queued.includes(task));
      if (fresh.length > 0) scratchpad = enqueueTasks(scratchpad, fresh);
      if (hasWork(scratchpad)) wake(trigger);
    });
  });
  setHandler(directiveSignal, (text) => {
    if (typeof text !== 'string' || text.trim() === '') return;
    if (running) {
      forwarded.push(text);
      // Sent without awaiting: the cycle shows it at its next iteration. Before the child has started,
      // it is sent as soon as the handle exists.
      if (running.handle) void running.handle.signal(directiveSignal, text).catch(() => undefined);
    } else {
      heldDirectives.push(text);
    }
  });

  upsertSearchAttributes([{ key: agentIdKey, value: agentId }]);
  persist();
  if (carried?.pendingWake && hasWork(scratchpad)) wake('manual');

  const runItem = async (item: WorkItem): Promise<Finished> => {
    cycleCount++;
    cyclesThisRun++;
    const cycleId = cycleWorkflowId(agentId, cycleCount);
    const directives = heldDirectives.splice(0);
    const trigger: Trigger = item.kind === 'chat' ? 'chat' : item.trigger;
    const cycleInput: CycleInput = {
      agentId,
      cycleId,
      before: scratchpad,
      trigger,
      mode: item.kind,
      ...(item.kind === 'chat' ? { message: item.message } : {}),
      maxIterations: (item.kind === 'task' && item.maxIterations) || settings.maxIterations,
      model: (item.kind === 'task' && item.model) || settings.model,
      reflectModel: settings.reflectModel,
      twoPhase: settings.twoPhase,
      budgetChars: settings.budgetChars,
      directives,
      ...(item.kind === 'task' && item.priorScratchpad ? { priorScratchpad: item.priorScratchpad } : {}),
    };
    forwarded = [];
    running = { cycleId, trigger };
    let result: CycleResult;
    try {
      const handle = await startChild(agentCycle, {
        workflowId: cycleId,
        args: [cycleInput],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: [{ key: agentIdKey, value: agentId }],
        staticSummary: summaryOf(item, scratchpad),
      });
      running = { cycleId, trigger, handle };
      for (const text of forwarded) void handle.signal(directiveSignal, text).catch(() => undefined);
      result = await handle.result();
    } catch (error) {
      // A cycle that fails outside its own fallback (terminated, bad input) leaves the memory as it was.
      const message = failureMessage(error);
      result = {
        agentId,
        cycleId,
        outcome: 'failed',
        after: { ...scratchpad, notes: `Cycle ${cycleId} failed: ${message}` },
        iterations: 0,
        usage: ZERO_USAGE,
        error: message,
      };
    }
    running = null;
    scratchpad = { ...result.after, last_updated: new Date().toISOString() };
    const seen = (result.directives ?? []).map((entry) => entry.text);
    // Held directives handed to a cycle that never reached its first iteration are not lost either.
    const unseen = [...directives, ...forwarded].filter((text) => !seen.includes(text));
    heldDirectives.unshift(...unseen);
    for (const text of seen) directiveLog.push({ text, cycleId });
    directiveLog.splice(0, Math.max(0, directiveLog.length - KEPT_DIRECTIVES));
    for (const [model, usage] of Object.entries(result.usageByModel ?? {})) {
      usageByModel[model] = addUsage(usageByModel[model] ?? ZERO_USAGE, usage);
    }
    const record: CycleRecord = {
      cycleId,
      trigger,
      outcome: result.outcome,
      iterations: result.iterations,
      usage: result.usage,
      directives: seen,
      ...(result.error ? { error: result.error } : {}),
    };
    cycles.push(record);
    cycles.splice(0, Math.max(0, cycles.length - KEPT_CYCLES));
    upsertSearchAttributes([
      { key: cycleCountKey, value: cycleCount },
      { key: lastOutcomeKey, value: result.outcome },
    ]);
    for (const change of deferred.splice(0)) change();
    persist();
    return { record, reply: result.reply };
  };

  const shouldContinueAsNew = () =>
    workflowInfo().continueAsNewSuggested || cyclesThisRun >= settings.continueAsNewEvery;

  // Only wakes can be carried over; work someone awaits (send, runCycle) is done in this run.
  const canCarryQueue = () => queue.every((item) => item.kind === 'task' && !awaited.has(item.id));
  for (;;) {
    await condition(() => queue.length > 0 || shouldContinueAsNew());
    if (shouldContinueAsNew() && canCarryQueue()) {
      // Waiting updates must get their answers before this run ends.
      await condition(() => allHandlersFinished() || !canCarryQueue());
      if (canCarryQueue()) {
        await continueAsNew<typeof agent>({
          agentId,
          scratchpad,
          settings,
          carried: {
            cycleCount,
            cycles,
            heldDirectives,
            directiveLog,
            usageByModel,
            runs,
            pendingWake: queue.length > 0,
          },
        });
      }
    }
    if (queue.length === 0) continue;
    const item = queue.shift() as WorkItem;
    const result = await runItem(item);
    if (awaited.has(item.id)) finished.set(item.id, result);
  }
}
