import {
  MAX_NOTES_CHARS,
  MAX_SECTION_CHARS,
  MAX_UPDATE_CHARS,
  SECTION_KEY_NAMES,
  defaultScratchpad,
  getSection,
} from '../../../../src/core/scratchpad/scratchpad';
import { appendNote, appendText, safeApply } from '../../../../src/core/scratchpad/update';

describe('update_scratchpad merge', () => {
  const base = { ...defaultScratchpad('Test agent'), workspace: 'draft v1', notes: 'n1' };

  it.each(SECTION_KEY_NAMES)('REPLACE, APPEND and CLEAR on %s', (key) => {
    const replaced = safeApply(base, { [key]: 'first' });
    expect(replaced.ok).toBe(true);
    expect(getSection(replaced.state, key)).toBe('first');

    const appended = safeApply(replaced.state, { [key]: 'APPEND: second' });
    expect(getSection(appended.state, key)).toBe('first\nsecond');

    const cleared = safeApply(appended.state, { [key]: 'CLEAR' });
    expect(cleared.ok).toBe(true);
    expect(getSection(cleared.state, key)).toBe('');
    for (const other of SECTION_KEY_NAMES.filter((name) => name !== key)) {
      expect(getSection(cleared.state, other)).toBe(getSection(base, other));
    }
  });

  it('APPEND replaces a bootstrap placeholder instead of keeping it', () => {
    expect(appendText('(none yet)', '- (user) likes tea')).toBe('- (user) likes tea');
    expect(appendText('[None declared]', 'no network')).toBe('no network');
    expect(appendText('kept', 'added')).toBe('kept\nadded');
  });

  it('replaces pending_actions and goals, extends completed_tasks (seed 000)', () => {
    const state = { ...base, pending_actions: ['a', 'b'], goals: ['g1'], completed_tasks: ['old'] };
    const result = safeApply(state, { pending_actions: ['c'], goals: ['g2', 'g3'], completed_tasks: ['new'] });
    expect(result.ok).toBe(true);
    expect(result.state.pending_actions).toEqual(['c']);
    expect(result.state.goals).toEqual(['g2', 'g3']);
    expect(result.state.completed_tasks).toEqual(['old', 'new']);
  });

  it('APPEND and CLEAR on list keys, current_task and notes', () => {
    const state = { ...base, pending_actions: ['a'], current_task: 'task', completed_tasks: ['x'] };
    const appended = safeApply(state, {
      pending_actions: 'APPEND: b',
      goals: 'APPEND: g',
      completed_tasks: 'APPEND: y',
      notes: 'APPEND: n2',
      current_task: 'APPEND: more',
    });
    expect(appended.state.pending_actions).toEqual(['a', 'b']);
    expect(appended.state.goals).toEqual(['g']);
    expect(appended.state.completed_tasks).toEqual(['x', 'y']);
    expect(appended.state.notes).toBe('n1\nn2');
    expect(appended.state.current_task).toBe('task\nmore');

    const cleared = safeApply(appended.state, {
      pending_actions: 'CLEAR',
      goals: 'CLEAR',
      completed_tasks: 'CLEAR',
      notes: 'CLEAR',
      current_task: 'CLEAR',
    });
    expect(cleared.state).toMatchObject({
      pending_actions: [],
      goals: [],
      completed_tasks: [],
      notes: '',
      current_task: null,
    });
  });

  it('an empty update changes nothing', () => {
    const result = safeApply(base, {});
    expect(result).toEqual({ ok: true, state: base, changed: [] });
  });
});

describe('update validation (seed 001 safe_apply)', () => {
  const base = defaultScratchpad();

  it.each([
    [{ bogus: 'x' }, /unknown key "bogus"/],
    [{ last_updated: '2020' }, /unknown key "last_updated"/],
    [{ workspace: 'x'.repeat(MAX_UPDATE_CHARS + 1) }, /one update may carry at most 5000/],
    [{ workspace: 42 }, /must be a string/],
    [{ pending_actions: [1, 2] }, /must be a string or a list of strings/],
    [{ completed_tasks: [{ task: 'x' }] }, /completed_tasks/],
    ['not an object', /must be an object/],
    [['list'], /must be an object/],
  ])('rejects %j whole', (args, reason) => {
    const result = safeApply(base, args);
    expect(result.ok).toBe(false);
    expect(result.state).toBe(base);
    if (!result.ok) expect(result.error).toMatch(reason);
  });

  it('rejects the whole update when one key is bad, applying none of the others', () => {
    const result = safeApply(base, { trajectory_now: 'changed', nope: 'x' });
    expect(result.ok).toBe(false);
    expect(result.state.trajectory.now).toBe(base.trajectory.now);
  });

  it('rejects an update that would empty the scratchpad', () => {
    const everything = Object.fromEntries(SECTION_KEY_NAMES.map((key) => [key, 'CLEAR']));
    const result = safeApply(base, everything);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/empty every section/);
  });

  it('rejects an APPEND that would grow a section past its cap', () => {
    const full = { ...base, self: { ...base.self, flags: 'f'.repeat(MAX_SECTION_CHARS - 10) } };
    const result = safeApply(full, { self_flags: 'APPEND: ' + 'x'.repeat(100) });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/would grow to/);
  });

  it('lets a growing section overshoot by one update, for the budget to archive', () => {
    const full = { ...base, workspace: 'w'.repeat(MAX_SECTION_CHARS - 10) };
    const result = safeApply(full, { workspace: 'APPEND: ' + 'x'.repeat(100), trajectory_now: 'next' });
    expect(result.ok).toBe(true);
    expect(result.state.trajectory.now).toBe('next');
  });
});

describe('notes', () => {
  it('never begin with a blank line: the first line appended to empty notes stands alone', () => {
    const empty = { ...defaultScratchpad('Test agent'), notes: '' };
    expect(safeApply(empty, { notes: 'APPEND: first' }).state.notes).toBe('first');
    expect(appendNote('', '[TOOL] echo')).toBe('[TOOL] echo');
    expect(appendNote('[TOOL] echo', '[COMPLETED] done')).toBe('[TOOL] echo\n[COMPLETED] done');
    // Notes written before this rule lose their leading blank line at the next append.
    expect(appendNote('\n[TOOL] echo', '[COMPLETED] done')).toBe('[TOOL] echo\n[COMPLETED] done');
  });

  it('trimmed notes begin with the trim marker, not a blank line, and stay within the cap', () => {
    const full = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(MAX_NOTES_CHARS / 50)}`).join('\n');
    const trimmed = appendNote(full, 'newest');
    expect(trimmed.startsWith('[… earlier notes trimmed]\nline ')).toBe(true);
    expect(trimmed.endsWith('\nnewest')).toBe(true);
    expect(trimmed.length).toBeLessThanOrEqual(MAX_NOTES_CHARS);
    expect(appendNote(trimmed, 'next').match(/earlier notes trimmed/g)).toHaveLength(1);
  });
});
