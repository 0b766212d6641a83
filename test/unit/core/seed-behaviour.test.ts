import { MAX_MESSAGE_CHARS, SendArgsSchema } from '../../../src/core/agent/agent';
import { applyCompletedArchive, hasArchivePointer, planCompletedArchive } from '../../../src/core/scratchpad/budget';
import { completeTask, dispatch } from '../../../src/core/cycle/dispatch';
import { NOTE_RESULT_CHARS, toolNote } from '../../../src/core/tools/observation';
import { MAX_NESTING_DEPTH, parseAction, parseTextAction } from '../../../src/core/cycle/parse';
import { ZERO_USAGE } from '../../../src/core/cycle/model';
import { renderMarkdown } from '../../../src/core/scratchpad/render';
import { defaultScratchpad, getSection } from '../../../src/core/scratchpad/scratchpad';
import {
  COMPLETED_TASKS_KEPT,
  MAX_COMPLETED_TASKS,
  MAX_GOALS,
  MAX_ITEM_CHARS,
  MAX_STATE_BYTES,
  stateBytes,
} from '../../../src/core/scratchpad/state-caps';
import { codePointLength } from '../../../src/core/text';
import { safeApply } from '../../../src/core/scratchpad/update';

const base = defaultScratchpad('test');

describe('characters, not UTF-16 units', () => {
  it('accepts 3,000 emoji as 3,000 characters under the 5,000-character limit', () => {
    const emoji = '😀'.repeat(3000);
    const result = safeApply(base, { workspace: emoji });
    expect(result).toMatchObject({ ok: true });
    expect(result.state.workspace).toBe(emoji);
  });

  it('still rejects 5,001 emoji, counting them as 5,001 characters', () => {
    expect(safeApply(base, { workspace: '😀'.repeat(5001) })).toMatchObject({
      ok: false,
      error: expect.stringContaining('5001 characters'),
    });
  });

  it('counts a chat message by code point too', () => {
    expect(SendArgsSchema().safeParse({ message: '😀'.repeat(MAX_MESSAGE_CHARS) }).success).toBe(true);
    expect(SendArgsSchema().safeParse({ message: '😀'.repeat(MAX_MESSAGE_CHARS + 1) }).success).toBe(false);
  });

  it('never splits a surrogate pair at the 1,500-character tool note', () => {
    const note = toolNote('echo', {}, { ok: true, result: `a${'😀'.repeat(2000)}` });
    const result = note.slice(note.indexOf('→ ') + 2);
    expect(codePointLength(result)).toBe(NOTE_RESULT_CHARS);
    expect(result).toBe(`a${'😀'.repeat(NOTE_RESULT_CHARS - 1)}`);
    expect(/[\uD800-\uDBFF]$/.test(note)).toBe(false);
  });
});

describe('APPEND keeps real content', () => {
  it.each(['[TODO: ask user]', '(NONE)', '[draft]'])('keeps %s and appends below it', (content) => {
    const state = safeApply(base, { understanding_known: content }).state;
    const appended = safeApply(state, { understanding_known: 'APPEND: - (user) likes tea' });
    expect(appended.state.understanding.known).toBe(`${content}\n- (user) likes tea`);
  });

  it("replaces seed 001's exact bootstrap placeholders", () => {
    const appended = safeApply(base, { identity_user: 'APPEND: ML engineer', understanding_known: 'APPEND: a fact' });
    expect(appended.state.identity.user).toBe('ML engineer');
    expect(appended.state.understanding.known).toBe('a fact');
  });

  it('changes nothing for `APPEND: ` with nothing after it', () => {
    for (const value of ['APPEND: ', 'APPEND:', 'APPEND:    ']) {
      const result = safeApply(base, { workspace: value, goals: value, notes: value, current_task: value });
      expect(result.ok).toBe(true);
      expect(result.state).toEqual(base);
    }
  });
});

describe("seed 001's confidence check", () => {
  it('keeps a confidence with none of HIGH, MEDIUM, LOW, with a note saying so', () => {
    const result = safeApply(base, { self_confidence: 'pretty sure - the user confirmed' });
    expect(result.ok).toBe(true);
    expect(result.state.self.confidence).toBe('pretty sure - the user confirmed');
    expect(result.state.notes).toContain('self_confidence names none of HIGH, MEDIUM, LOW');
  });

  it('adds no note when a level is named', () => {
    expect(safeApply(base, { self_confidence: 'high - confirmed' }).state.notes).toBe('');
  });
});

describe('caps everywhere', () => {
  it('500 updates of {"goals": "APPEND: <4,990 chars>"} do not grow the state past its cap', () => {
    let state = base;
    let accepted = 0;
    for (let index = 0; index < 500; index++) {
      const outcome = safeApply(state, { goals: `APPEND: ${String(index).padEnd(4990, 'g')}` });
      if (outcome.ok) accepted++;
      state = outcome.state;
    }
    expect(accepted).toBe(0);
    expect(stateBytes(state)).toBeLessThan(MAX_STATE_BYTES);
  });

  it('caps the number of goals', () => {
    let state = base;
    for (let index = 0; index < 60; index++) state = safeApply(state, { goals: `APPEND: goal ${index}` }).state;
    expect(state.goals.length).toBe(MAX_GOALS);
    const rejected = safeApply(state, { goals: 'APPEND: one more' });
    expect(rejected).toMatchObject({
      ok: false,
      error: expect.stringMatching(/"goals" would hold 51 items \(limit 50\)/),
    });
    expect(safeApply(state, { goals: ['a fresh short list'] }).ok).toBe(true);
  });

  it('caps the whole state, whatever mix of keys grows it', () => {
    let state = base;
    const errors = new Set<string>();
    for (let index = 0; index < 120; index++) {
      const item = String(index).padEnd(MAX_ITEM_CHARS - 10, '😀');
      for (const update of [
        { goals: `APPEND: ${item}` },
        { pending_actions: `APPEND: ${item}` },
        { completed_tasks: [item] },
      ]) {
        const outcome = safeApply(state, update);
        if (!outcome.ok) errors.add(outcome.error.replace(/\d+/g, 'N'));
        state = outcome.state;
      }
    }
    expect(stateBytes(state)).toBeLessThanOrEqual(MAX_STATE_BYTES);
    expect([...errors]).toContainEqual(expect.stringContaining('the scratchpad would grow to N bytes (limit N)'));
  });

  it('rejects an item over the item cap', () => {
    expect(safeApply(base, { pending_actions: ['x'.repeat(MAX_ITEM_CHARS + 1)] })).toMatchObject({
      ok: false,
      error: expect.stringContaining(`one item may be at most ${MAX_ITEM_CHARS}`),
    });
  });

  it('cuts an oversized done summary to the item cap rather than failing the task', () => {
    const state = completeTask({ ...base, current_task: 't'.repeat(5000) }, 's'.repeat(9000));
    const item = state.completed_tasks[0] as { task: string; summary: string };
    expect(codePointLength(item.task)).toBe(MAX_ITEM_CHARS);
    expect(codePointLength(item.summary)).toBe(MAX_ITEM_CHARS);
  });

  it('archives old completed tasks behind a pointer the model sees, chaining archives', () => {
    const tasks = Array.from({ length: MAX_COMPLETED_TASKS + 1 }, (_, index) => ({ task: `t${index}`, summary: 'ok' }));
    const state = { ...base, completed_tasks: tasks };
    const cut = planCompletedArchive(state);
    expect(cut?.count).toBe(tasks.length - COMPLETED_TASKS_KEPT);
    expect(cut?.removed.split('\n')[0]).toBe('- t0 — ok');
    const archived = applyCompletedArchive(state, cut!, 'aaaaaaaaaaaaaaaa');
    expect(archived.completed_tasks).toHaveLength(COMPLETED_TASKS_KEPT + 1);
    expect(archived.completed_tasks[0]).toBe(
      `[ARCHIVED ${cut!.count} older completed tasks: scratchpad_read(scratchpad_id="aaaaaaaaaaaaaaaa")]`,
    );
    expect(hasArchivePointer(archived)).toBe(true);
    expect(renderMarkdown(archived)).toContain('scratchpad_read(scratchpad_id="aaaaaaaaaaaaaaaa")');
    expect(planCompletedArchive(archived)).toBeUndefined();
    const grown = { ...archived, completed_tasks: [...archived.completed_tasks, ...tasks] };
    expect(planCompletedArchive(grown)?.removed.split('\n')[0]).toContain('aaaaaaaaaaaaaaaa');
  });

  it(`makes model output nested deeper than ${MAX_NESTING_DEPTH} levels a parse error, never a RangeError`, () => {
    const deep = 100_000;
    const text = `{"tool": "update_scratchpad", "args": {"goals": ${'['.repeat(deep)}${']'.repeat(deep)}}}`;
    const parsed = parseTextAction(text);
    expect(parsed).toEqual({ ok: false, error: `arguments of update_scratchpad nest deeper than 64 levels` });
    expect(dispatch(base, parsed, ['echo'])).toMatchObject({ kind: 'parse_error' });
    let input: unknown = 'leaf';
    for (let level = 0; level < 65; level++) input = { nested: input };
    const native = parseAction({
      text: '',
      toolCalls: [{ id: 'call-1', name: 'echo', input: input as Record<string, unknown> }],
      stopReason: 'tool_use',
      usage: ZERO_USAGE,
      model: 'scripted',
    });
    expect(native).toMatchObject({ ok: false, error: expect.stringContaining('deeper than 64') });
  });

  it('accepts nesting of exactly 64 levels', () => {
    let args: unknown = 'leaf';
    for (let level = 0; level < 63; level++) args = { nested: args };
    expect(parseTextAction(JSON.stringify({ tool: 'echo', args })).ok).toBe(true);
    expect(getSection(base, 'workspace')).toBe('(empty)');
  });
});
