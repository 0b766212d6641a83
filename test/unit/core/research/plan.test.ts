import { BOARD_LIMITS } from '../../../../src/core/research/board';
import type { ModelResponse } from '../../../../src/core/cycle/model';
import { ResearchInputSchema, strategyOf } from '../../../../src/core/research/run';
import {
  MAX_PLANNED_FACTS,
  PLAN_TOOL,
  checkPlan,
  needsPlan,
  planCorrection,
  planFromResponse,
  planPrompt,
  replySummary,
} from '../../../../src/core/research/plan';
import { ENTRY_BODIES } from '../../../../src/core/research/board-schema';

const question = 'Revenue and employees of Acme and Globex';
const given = { question };

function reply(partial: Partial<ModelResponse>): ModelResponse {
  return {
    text: '',
    toolCalls: [],
    stopReason: 'tool_use',
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: 'test',
    ...partial,
  };
}

const call = (input: unknown) => reply({ toolCalls: [{ id: 'c1', name: PLAN_TOOL, input }] });
const names = (n: number, prefix = 'E') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

describe('checkPlan: untrusted plan arguments, checked with the board limits', () => {
  it('accepts a plan, trimming names, collapsing spaces and dropping blanks and case-insensitive duplicates', () => {
    const verdict = checkPlan(
      { goal: '  Compare them ', entities: [' Acme ', 'acme', 'Globex  Corp', '  '], fields: ['revenue', 'Revenue'] },
      given,
    );
    expect(verdict).toEqual({
      ok: true,
      plan: { goal: 'Compare them', entities: ['Acme', 'Globex Corp'], fields: ['revenue'] },
    });
  });

  it('falls back to the question when the goal is missing or blank', () => {
    for (const goal of [undefined, null, '   ']) {
      const verdict = checkPlan({ goal, entities: ['Acme'], fields: ['revenue'] }, given);
      expect(verdict.ok && verdict.plan.goal).toBe(question);
    }
  });

  it.each([
    ['not an object', ['Acme'], 'plan_research arguments must be an object'],
    ['entities missing', { fields: ['revenue'] }, 'entities must be a list of names, got nothing'],
    ['entities a string', { entities: 'Acme', fields: ['revenue'] }, 'entities must be a list of names, got a string'],
    [
      'an entity a number',
      { entities: ['Acme', 7], fields: ['revenue'] },
      'entities[1] must be a string, got a number',
    ],
    ['a field an object', { entities: ['Acme'], fields: [{}] }, 'fields[0] must be a string, got a object'],
    ['goal a number', { goal: 42, entities: ['Acme'], fields: ['x'] }, 'goal must be a string, got a number'],
    ['empty fields', { entities: ['Acme'], fields: [] }, 'fields is empty: name at least one'],
    ['only blank fields', { entities: ['Acme'], fields: [' ', ''] }, 'fields is empty: name at least one'],
    ['too many entities', { entities: names(65), fields: ['x'] }, 'entities has 65 items; at most 64'],
    [
      'too many facts',
      { entities: names(9), fields: names(8, 'F') },
      `9 entities × 8 fields = 72 facts; a planned run has at most ${MAX_PLANNED_FACTS}`,
    ],
    [
      'a name too long',
      { entities: ['x'.repeat(BOARD_LIMITS.name + 1)], fields: ['y'] },
      `entities[0] has ${BOARD_LIMITS.name + 1} characters; at most ${BOARD_LIMITS.name}`,
    ],
    [
      'a goal too long',
      { goal: 'g'.repeat(BOARD_LIMITS.text + 1), entities: ['x'], fields: ['y'] },
      `goal has ${BOARD_LIMITS.text + 1} characters; at most ${BOARD_LIMITS.text}`,
    ],
  ])('refuses %s with the reason', (_name, args, reason) => {
    expect(checkPlan(args, given)).toEqual({ ok: false, reason });
  });

  it('accepts exactly the fact cap, and a plan within it always makes a valid STRATEGY', () => {
    const verdict = checkPlan({ entities: names(8), fields: names(8, 'F') }, given);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    const strategy = strategyOf(verdict.plan, (n) => `w${n}`);
    expect(strategy.assigned).toHaveLength(MAX_PLANNED_FACTS);
    expect(ENTRY_BODIES().STRATEGY.safeParse(strategy).success).toBe(true);
  });

  it("keeps the user's lists over the model's, whatever the model's hold", () => {
    const verdict = checkPlan(
      { entities: 'garbage', fields: ['employees', 'revenue'] },
      { question, entities: ['Acme', 'Globex'] },
    );
    expect(verdict).toEqual({
      ok: true,
      plan: { goal: question, entities: ['Acme', 'Globex'], fields: ['employees', 'revenue'] },
    });
    const both = checkPlan({ entities: ['X'], fields: ['Y'] }, { question, entities: ['Acme'], fields: ['revenue'] });
    expect(both.ok && both.plan).toEqual({ goal: question, entities: ['Acme'], fields: ['revenue'] });
  });

  it("counts the user's list in the fact cap", () => {
    const verdict = checkPlan({ fields: ['a', 'b'] }, { question, entities: names(40) });
    expect(verdict).toEqual({ ok: false, reason: '40 entities × 2 fields = 80 facts; a planned run has at most 64' });
  });
});

describe('planFromResponse: where the plan is in a reply', () => {
  const plan = { goal: 'g', entities: ['Acme'], fields: ['revenue'] };

  it('reads a native plan_research call', () => {
    expect(planFromResponse(call(plan), given)).toEqual({ ok: true, plan });
  });

  it("reads seed 000's JSON text protocol and a bare plan object (OpenAI-compatible models)", () => {
    const text = `Here is the plan:\n\`\`\`json\n${JSON.stringify({ tool: PLAN_TOOL, args: plan })}\n\`\`\``;
    expect(planFromResponse(reply({ text }), given)).toEqual({ ok: true, plan });
    expect(planFromResponse(reply({ text: JSON.stringify(plan) }), given)).toEqual({ ok: true, plan });
  });

  it('refuses another tool, prose, and malformed arguments', () => {
    const other = reply({ toolCalls: [{ id: 'c', name: 'web_search', input: { query: 'x' } }] });
    expect(planFromResponse(other, given)).toEqual({
      ok: false,
      reason: 'expected a call to plan_research, got web_search',
    });
    const prose = planFromResponse(reply({ text: 'Acme and Globex, I think.' }), given);
    expect(prose.ok).toBe(false);
    expect(!prose.ok && prose.reason).toMatch(/^no plan_research call in the reply/);
    expect(planFromResponse(call('not an object'), given)).toEqual({
      ok: false,
      reason: 'arguments of plan_research must be an object',
    });
  });
});

describe('the planning prompt', () => {
  it('starts with the question, states the limits and the lists the user gave', () => {
    const prompt = planPrompt({ question, fields: ['revenue'] });
    expect(prompt.split('\n')[0]).toBe(`Question: ${question}`);
    expect(prompt).toContain(`at most ${MAX_PLANNED_FACTS} facts`);
    expect(prompt).toContain('Fields (given by the user; keep them): revenue');
    expect(prompt).not.toContain('Entities (given');
    expect(planCorrection('fields is empty')).toContain('refused: fields is empty');
  });

  it('quotes a reply back, capped', () => {
    expect(replySummary(call({ entities: ['x'.repeat(5000)] })).length).toBe(BOARD_LIMITS.text);
    expect(replySummary(reply({ text: '' }))).toBe('(empty reply)');
  });

  it('is needed when either list is left out; the input schema allows leaving them out', () => {
    expect(needsPlan({ question })).toBe(true);
    expect(needsPlan({ question, entities: ['a'] })).toBe(true);
    expect(needsPlan({ question, entities: ['a'], fields: ['b'] })).toBe(false);
    expect(ResearchInputSchema().safeParse({ runId: 'r1', question, model: 'scripted:x' }).success).toBe(true);
    expect(ResearchInputSchema().safeParse({ runId: 'r1', question, entities: [] }).success).toBe(false);
  });
});
