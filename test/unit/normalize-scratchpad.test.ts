import { normalizeScratchpad } from '../../src/core/scratchpad/scratchpad';

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
});
