import * as path from 'node:path';
import { SRC, loadedBy, relative } from '../../helpers/module-graph';

/*
 * A worker that does not share its workflow modules (config/paths.ts; a user's own bundle, a replay outside a
 * reusable context) evaluates its own copy of each module in every execution (bench/throughput-tasks.ts measured this
 * as most of a new workflow's first task), so the agent and its cycles must not build research or staged-run schemas.
 */
describe('what an agent and its cycles load', () => {
  const forbidden = [
    'core/research/board-schema.ts',
    'core/research/board.ts',
    'core/research/run.ts',
    'core/research/plan.ts',
    'core/staged/input.ts',
  ];

  it.each(['workflows/agent/agent.ts', 'workflows/agent/agent-cycle.ts', 'workflows/agent/subagent.ts'])(
    '%s loads no research board or staged-run schemas',
    (root) => {
      const loaded = relative(loadedBy(path.join(SRC, root)));
      expect(loaded.filter((file) => forbidden.includes(file))).toEqual([]);
      expect(loaded).toContain('core/scratchpad/scratchpad.ts');
    },
  );

  it('the research supervisor does load them (the check can see them)', () => {
    expect(relative(loadedBy(path.join(SRC, 'workflows/research/research.ts')))).toEqual(
      expect.arrayContaining(['core/research/board-schema.ts', 'core/research/run.ts']),
    );
  });
});
