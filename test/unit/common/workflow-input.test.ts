import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { describeIssues, issuePath, parseWorkflowInput } from '../../../src/common/workflow-input';
import { UsageByModelSchema, UsageSchema, MAX_USAGE_TOKENS } from '../../../src/core/cycle/model';
import { ResearchHandoverSchema, UserDirectiveSchema, WorkerInputSchema } from '../../../src/core/research/run';
import { WakeAgentArgsSchema } from '../../../src/common/workflow-types';
import { AgentSettingsSchema } from '../../../src/core/agent/agent';
import { validateConfigure } from '../../../src/workflows/agent/validators';

const Input = z.object({
  agentId: z.string().min(1),
  settings: z.object({ maxIterations: z.number().int().default(10) }).default({ maxIterations: 10 }),
  tasks: z.array(z.string()).default([]),
});

function failureOf(run: () => unknown): ApplicationFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof ApplicationFailure) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('parseWorkflowInput', () => {
  it('returns the parsed value, defaults filled in', () => {
    expect(parseWorkflowInput(Input, { agentId: 'a' }, 'AgentError.BadInput', 'agent input')).toEqual({
      agentId: 'a',
      settings: { maxIterations: 10 },
      tasks: [],
    });
  });

  it('fails non-retryably with the type, naming each bad field on one line', () => {
    const failure = failureOf(() =>
      parseWorkflowInput(Input, { settings: { maxIterations: 'ten' }, tasks: ['ok', 7] }, 'X.BadInput', 'agent input'),
    );
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('X.BadInput');
    expect(failure.message).toMatch(/^invalid agent input: agentId: .*; settings\.maxIterations: .*; tasks\[1\]: /);
    expect(failure.message).not.toContain('\n');
  });

  it('names the input itself when it is not an object at all', () => {
    expect(failureOf(() => parseWorkflowInput(Input, 'hello', 'X.BadInput', 'agent input')).message).toBe(
      'invalid agent input: Invalid input: expected object, received string',
    );
  });

  it('stays short however many issues a hostile input has', () => {
    const hostile = { agentId: 'a', tasks: Array.from({ length: 10_000 }, (_, index) => index) };
    const { message } = failureOf(() => parseWorkflowInput(Input, hostile, 'X.BadInput', 'agent input'));
    expect(message.length).toBeLessThan(1200);
    expect(message).toMatch(/tasks\[0\]: .*; and 9995 more$/);
  });

  it('cuts long keys and quotes odd ones', () => {
    expect(issuePath(['carried', 'cycles', 3, 'usage'])).toBe('carried.cycles[3].usage');
    expect(issuePath(['usageByModel', 'claude 3', 'inputTokens'])).toBe('usageByModel["claude 3"].inputTokens');
    expect(issuePath(['k'.repeat(5000)])).toBe(`["${'k'.repeat(39)}…"]`);
    const strict = z.strictObject({ a: z.string() });
    const parsed = strict.safeParse({ a: 'x', ['y'.repeat(10_000)]: 1 });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(describeIssues(parsed.error).length).toBeLessThanOrEqual(200);
  });
});

describe('the schemas at the edges', () => {
  it('usage: non-negative integers up to the bound, by at most 20 short model names', () => {
    const usage = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(UsageSchema().safeParse(usage).success).toBe(true);
    expect(UsageSchema().safeParse({ ...usage, inputTokens: MAX_USAGE_TOKENS + 1 }).success).toBe(false);
    expect(UsageSchema().safeParse({ ...usage, inputTokens: 1.5 }).success).toBe(false);
    expect(UsageSchema().safeParse({ ...usage, inputTokens: -1 }).success).toBe(false);
    expect(UsageByModelSchema().safeParse({ m: usage }).success).toBe(true);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`m${index}`, usage]));
    expect(UsageByModelSchema().safeParse(many).success).toBe(false);
  });

  it("research directive: by 5 or a null argument is refused; a missing or blank author is the user's", () => {
    expect(UserDirectiveSchema().safeParse({ text: 'x', by: 5 }).success).toBe(false);
    expect(UserDirectiveSchema().safeParse(null).success).toBe(false);
    expect(UserDirectiveSchema().safeParse({ text: '   ' }).success).toBe(false);
    expect(UserDirectiveSchema().parse({ text: ' prefer filings ', by: null })).toEqual({
      author: { role: 'user', id: 'user' },
      draft: { type: 'USER_DIRECTIVE', body: { text: 'prefer filings' } },
    });
    expect(UserDirectiveSchema().safeParse({ text: 'x'.repeat(2001), by: ' ada ' }).success).toBe(false);
    expect(UserDirectiveSchema().parse({ text: 'x', by: ' ada ' }).author.id).toBe('ada');
  });

  it('research worker input and carry: what the supervisor sends passes, a wrong type is named', () => {
    const worker = {
      supervisorId: 'research/r1',
      workerId: 'research/r1/worker/1',
      entity: 'Acme',
      field: 'revenue',
      goal: 'Revenue of Acme',
      delegated: false,
      tombstoned: [],
      maxTurns: 8,
      attempt: 1,
    };
    expect(WorkerInputSchema().parse(worker)).toEqual(worker);
    const failure = failureOf(() =>
      parseWorkflowInput(WorkerInputSchema(), { ...worker, delegated: 'yes' }, 'R', 'worker'),
    );
    expect(failure.message).toMatch(/^invalid worker: delegated: /);
    const entry = {
      id: 'e1',
      type: 'USER_DIRECTIVE',
      author: { role: 'user', id: 'ada' },
      turn: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      body: { text: 'prefer filings' },
    };
    const carry = {
      entries: [entry],
      nextWorker: 2,
      startedAt: 1,
      directivesRead: 0,
      activeWorkers: [],
      spawned: [],
      generation: 1,
    };
    expect(ResearchHandoverSchema().parse(carry)).toEqual(carry);
    const bad = { ...carry, entries: [{ ...entry, body: { text: 5 } }] };
    expect(failureOf(() => parseWorkflowInput(ResearchHandoverSchema(), bad, 'R', 'carry')).message).toMatch(
      /entries\[0\]\.body\.text/,
    );
  });

  it('wake: an agent id and a task queue', () => {
    expect(WakeAgentArgsSchema().parse({ agentId: 'a', taskQueue: 'q' })).toEqual({
      agentId: 'a',
      taskQueue: 'q',
      tasks: [],
    });
    expect(WakeAgentArgsSchema().safeParse({ agentId: 'a/b', taskQueue: 'q' }).success).toBe(false);
  });

  it('configure: refuses a non-object, an unknown setting and an invalid value', () => {
    const settings = AgentSettingsSchema().parse({});
    expect(() => validateConfigure(settings, 'fast')).toThrow(/expected record/);
    expect(() => validateConfigure(settings, null)).toThrow(/expected record/);
    expect(() => validateConfigure(settings, { modle: 'x' })).toThrow('unknown setting "modle"');
    expect(() => validateConfigure(settings, { maxIterations: 0 })).toThrow(/maxIterations/);
    expect(() => validateConfigure(settings, { model: 'scripted:x', maxIterations: 3 })).not.toThrow();
  });
});
