import {
  NO_OP_CORRECTION,
  buildStageContext,
  looksLikeStagedWork,
  normalizePath,
  parsePlan,
  pathCapRefusal,
  shouldStage,
  stagedOutcome,
} from '../../../../src/core/staged/rules';
import {
  PRIOR_SCRATCHPAD_CHARS,
  priorScratchpadBlock,
  scratchpadFromArgs,
  withPriorScratchpad,
} from '../../../../src/core/cycle/run-notes';

describe('the staging rule (seed 004)', () => {
  it.each([
    'Build a REST API for todos',
    'add an HTTP server with a /health endpoint',
    'Write the database migration for users',
    'store sessions in Redis',
    'Add express to the dependencies',
    'update package.json scripts',
    'create a microservice',
  ])('stages %s', (task) => expect(looksLikeStagedWork(task)).toBe(true));

  it.each([
    'Write a slugify function with tests',
    'restore the backup note',
    'fix the dbg helper',
    'rename a variable',
  ])('does not stage %s', (task) => expect(looksLikeStagedWork(task)).toBe(false));

  it('lets --staged and --no-staged override the rule', () => {
    expect(shouldStage('write a slugify function', true)).toBe(true);
    expect(shouldStage('build an API', false)).toBe(false);
    expect(shouldStage('build an API', undefined)).toBe(true);
  });
});

describe('prior scratchpad', () => {
  it('goes at the bottom of the message under its heading', () => {
    const message = withPriorScratchpad('do a task', '{"plan":["step1","step2"],"done":["step1"],"next":"step2"}');
    expect(message).toBe(
      'do a task\n\n## Prior scratchpad\n\n{"plan":["step1","step2"],"done":["step1"],"next":"step2"}',
    );
  });

  it('is omitted entirely when empty or blank', () => {
    expect(withPriorScratchpad('do a task', '')).toBe('do a task');
    expect(withPriorScratchpad('do a task', '  \n ')).toBe('do a task');
    expect(withPriorScratchpad('do a task', undefined)).toBe('do a task');
  });

  it('is cut at 2,000 characters, never inside a character', () => {
    const block = priorScratchpadBlock('é'.repeat(5000));
    expect(block).toBe(`## Prior scratchpad\n\n${'é'.repeat(PRIOR_SCRATCHPAD_CHARS)}`);
    expect(priorScratchpadBlock('😀'.repeat(2001)).endsWith('😀'.repeat(PRIOR_SCRATCHPAD_CHARS))).toBe(true);
  });
});

describe('stage context', () => {
  it('holds the task, the plan, this stage and notes, and the correction when given', () => {
    const text = buildStageContext({
      task: 'Build a slug module',
      plan: ['write slug.js', 'write tests'],
      index: 2,
      stage: 'write tests',
      notes: '{"done":["slug.js"]}',
      maxPaths: 3,
      correction: NO_OP_CORRECTION,
    });
    expect(text).toContain('Task: Build a slug module');
    expect(text).toContain('1. write slug.js\n2. write tests');
    expect(text).toContain('Stage 2 of 2: write tests');
    expect(text).toContain('at most 3 paths');
    expect(text).toContain('Notes so far:\n{"done":["slug.js"]}');
    expect(text.endsWith(`\n${NO_OP_CORRECTION}`)).toBe(true);
    expect(NO_OP_CORRECTION).toBe('no files changed: give concrete files or patches');
  });
});

describe('plans and run-local notes', () => {
  it('keeps string stages, capped in number and length', () => {
    expect(parsePlan({ stages: ['a', 7, '', ' b '] })).toEqual(['a', 'b']);
    expect(parsePlan({ stages: 'a' })).toBeUndefined();
    expect(parsePlan({ stages: [] })).toBeUndefined();
    expect(parsePlan({ stages: Array.from({ length: 20 }, (_, i) => `s${i}`) })).toHaveLength(8);
    expect(parsePlan({ stages: ['x'.repeat(900)] })?.[0]).toHaveLength(500);
  });

  it('reads a scratchpad field as text or JSON, capped', () => {
    expect(scratchpadFromArgs({ path: 'a', scratchpad: 'notes' })).toBe('notes');
    expect(scratchpadFromArgs({ scratchpad: { next: 'tests' } })).toBe('{"next":"tests"}');
    expect(scratchpadFromArgs({ path: 'a' })).toBeUndefined();
    expect(scratchpadFromArgs({ scratchpad: '  ' })).toBeUndefined();
    expect(scratchpadFromArgs(null)).toBeUndefined();
    expect(scratchpadFromArgs({ scratchpad: 'x'.repeat(10_000) })).toHaveLength(8000);
  });
});

describe('the touched-path cap', () => {
  it('counts one path once whatever its spelling', () => {
    expect(normalizePath('./src//a.js')).toBe('src/a.js');
    expect(normalizePath('src/x/../a.js')).toBe('src/a.js');
    expect(normalizePath('../out.js')).toBe('../out.js');
  });

  it('refuses a fourth path and allows rewriting a touched one', () => {
    const touched = ['a.js', 'b.js', 'c.js'];
    expect(pathCapRefusal(touched.slice(0, 2), 'c.js', 3)).toBeUndefined();
    expect(pathCapRefusal(touched, './a.js', 3)).toBeUndefined();
    expect(pathCapRefusal(touched, 'd.js', 3)).toMatch(
      /^refused: this stage may touch at most 3 paths .*d\.js was not written/,
    );
  });
});

describe('outcomes', () => {
  it('is verified only when verification ran and passed', () => {
    expect(stagedOutcome('passed')).toBe('verified');
    expect(stagedOutcome('none')).toBe('unverified');
    expect(stagedOutcome('failed')).toBe('failed');
  });
});
