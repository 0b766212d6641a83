import {
  applyArchive,
  applyCompletedArchive,
  archivePointer,
  archivePointerIds,
  planArchive,
  planCompletedArchive,
  renderedSize,
} from '../../../../src/core/scratchpad/budget';
import { MAX_COMPLETED_TASKS } from '../../../../src/core/scratchpad/state-caps';
import { MAX_SECTION_CHARS, defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const lines = (prefix: string, count: number, width = 90) =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index} ${'.'.repeat(width)}`).join('\n');

describe('memory budget (seed 001 archive_workspace)', () => {
  it('does nothing within budget', () => {
    expect(planArchive(defaultScratchpad(), 8000)).toEqual([]);
  });

  it('archives the oldest WORKSPACE lines first, then Path, then Known, losing nothing', () => {
    const state = {
      ...defaultScratchpad(),
      workspace: lines('w', 45),
      trajectory: { ...defaultScratchpad().trajectory, path: lines('p', 45) },
      understanding: { ...defaultScratchpad().understanding, known: lines('k', 45) },
    };
    const cuts = planArchive(state, 8000);
    expect(cuts.map((cut) => cut.section)).toEqual(['workspace', 'trajectory_path']);
    for (const cut of cuts) {
      const original = cut.section === 'workspace' ? state.workspace : state.trajectory.path;
      expect(`${cut.removed}\n${cut.kept}`).toBe(original);
    }
    let next = state;
    cuts.forEach((cut, index) => (next = applyArchive(next, cut, `id${index}`.padEnd(16, '0'))));
    expect(renderedSize(next)).toBeLessThanOrEqual(8000);
    expect(next.workspace.startsWith(archivePointer('id00000000000000', cuts[0]!.removed.length))).toBe(true);
    expect(next.workspace.endsWith(`w 44 ${'.'.repeat(90)}`)).toBe(true);
  });

  it('cuts a growing section back under the section cap even within budget', () => {
    const state = { ...defaultScratchpad(), workspace: lines('w', 60) };
    expect(state.workspace.length).toBeGreaterThan(MAX_SECTION_CHARS);
    const [cut] = planArchive(state, 100_000);
    expect(cut?.section).toBe('workspace');
    const next = applyArchive(state, cut!, 'abcdef0123456789');
    expect(next.workspace.length).toBeLessThanOrEqual(MAX_SECTION_CHARS);
  });

  it('names the entries every archive pointer of the memory points to, each once', () => {
    const tasks = Array.from({ length: MAX_COMPLETED_TASKS + 1 }, (_, index) => `task ${index}`);
    const withTasks = { ...defaultScratchpad(), completed_tasks: tasks };
    const cut = planCompletedArchive(withTasks);
    const state = {
      ...applyCompletedArchive(withTasks, cut!, 'cccccccccccccccc'),
      workspace: `${archivePointer('aaaaaaaaaaaaaaaa', 100)}\nnewer work`,
      understanding: {
        ...defaultScratchpad().understanding,
        known: `${archivePointer('bbbbbbbbbbbbbbbb', 50)}\nfact\n${archivePointer('aaaaaaaaaaaaaaaa', 100)}`,
      },
      // The model writing about a pointer is not one.
      notes: 'scratchpad_read(scratchpad_id="dddddddddddddddd")',
    };
    expect(archivePointerIds(state)).toEqual(['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'cccccccccccccccc']);
    expect(archivePointerIds(defaultScratchpad())).toEqual([]);
  });
});
