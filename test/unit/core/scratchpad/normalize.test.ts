import { normalizeScratchpad } from '../../../../src/core/scratchpad/scratchpad';

// `import FILE` and `cycle --from FILE` print this message after the file's name: one readable line, not zod's JSON.
describe('normalizeScratchpad', () => {
  it('fills what a partial scratchpad leaves out', () => {
    expect(normalizeScratchpad({ goals: ['g'] }).goals).toEqual(['g']);
  });

  it('refuses a bad one in one line naming each bad field', () => {
    const refusal = () => normalizeScratchpad({ goals: 'not a list', current_task: 7 });
    expect(refusal).toThrow(/^goals: .*expected array.*; current_task: /);
    expect(refusal).not.toThrow(/[\n{[]/);
  });

  it('refuses a document that is not a scratchpad instead of importing an empty one', () => {
    expect(() => normalizeScratchpad({ name: 'durable-scratchpad', version: '0.5.0' })).toThrow(
      /^not a scratchpad: unknown key\(s\) name, version \(expected goals, /,
    );
    expect(() => normalizeScratchpad({ foo: 1 })).toThrow(/unknown key\(s\) foo/);
  });
});
