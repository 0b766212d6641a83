import { z } from 'zod';
import {
  type AgentSettings,
  AgentSettingsSchema,
  type EnqueueArgsSchema,
  InjectArgsSchema,
  type RunCycleArgsSchema,
} from '../../core/agent/agent';
import { CancelCycleArgsSchema, cancelRefusal } from '../../core/agent/cancel';
import { type Scratchpad, ScratchpadSchema, enqueueTasks } from '../../core/scratchpad/scratchpad';
import { importViolation, queueViolation } from '../../core/scratchpad/state-caps';
import { safeApply } from '../../core/scratchpad/update';
import { describeIssues } from '../../common/workflow-input';

/**
 * Update validators of the agent workflow: synchronous checks against the state of the moment, so a bad request is
 * rejected before it reaches history and changes nothing.
 */
export function validate(schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  // One bounded line, however many issues a hostile argument has.
  if (!parsed.success) throw new Error(describeIssues(parsed.error));
}

/** `runCycle` and `enqueue`: the tasks and goals must fit the caps of the state as it is now. */
export function validateQueue(
  state: Scratchpad,
  schema: ReturnType<typeof RunCycleArgsSchema> | ReturnType<typeof EnqueueArgsSchema>,
  args: unknown,
): void {
  validate(schema, args);
  const { tasks, goals = [] } = schema.parse(args) as { tasks: string[]; goals?: string[] };
  const refusal = queueViolation(state, enqueueTasks(state, tasks, goals));
  if (refusal) throw new Error(refusal);
}

export function validateInject(state: Scratchpad, args: unknown): void {
  validate(InjectArgsSchema(), args);
  const { section, content } = InjectArgsSchema().parse(args);
  const outcome = safeApply(state, { [section]: content });
  if (!outcome.ok) throw new Error(outcome.error);
}

export function validateImport(state: unknown): void {
  validate(ScratchpadSchema(), state);
  const refusal = importViolation(ScratchpadSchema().parse(state));
  if (refusal) throw new Error(refusal);
}

/** `configure`: an object of settings to change, none unknown, that leaves the settings valid. */
export function validateConfigure(settings: AgentSettings, changes: unknown): void {
  validate(z.record(z.string(), z.unknown()), changes);
  const unknown = Object.keys(changes as object).filter((key) => !Object.hasOwn(AgentSettingsSchema().shape, key));
  // Quietly ignoring a misspelt setting would leave the user believing it changed.
  if (unknown.length > 0) throw new Error(`unknown setting ${JSON.stringify(unknown[0]).slice(0, 100)}`);
  validate(AgentSettingsSchema(), { ...settings, ...(changes as object) });
}

/** `cancelCycle`: only the cycle that runs now (`running`, its id) can be cancelled. */
export function validateCancel(running: string | undefined, args: unknown): void {
  validate(CancelCycleArgsSchema(), args);
  const refusal = cancelRefusal(running, CancelCycleArgsSchema().parse(args).cycleId);
  if (refusal) throw new Error(refusal);
}
