import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', 'src');

/** Modules a value import of `file` evaluates, transitively (type-only imports are erased and load nothing). */
function loadedBy(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from '(\.[^']+)'/gms)) {
    const [, typeOnly, names = '', specifier = ''] = match;
    if (typeOnly) continue;
    const braces = /^\{([^}]*)\}$/.exec(names.trim());
    if (braces && braces[1]!.split(',').every((name) => name.trim() === '' || name.trim().startsWith('type ')))
      continue;
    const base = path.resolve(path.dirname(file), specifier);
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
    if (target) loadedBy(target, seen);
  }
  return seen;
}

const relative = (files: Set<string>) => [...files].map((file) => path.relative(SRC, file));

/*
 * Every workflow execution evaluates its own copy of each module it loads (bench/throughput-tasks.ts measured this as
 * most of a new workflow's first task), so the agent and its cycles must not build research or staged-run schemas.
 */
describe('what an agent and its cycles load', () => {
  const forbidden = [
    'core/board-schema.ts',
    'core/board.ts',
    'core/research.ts',
    'core/research-plan.ts',
    'core/staged-input.ts',
  ];

  it.each(['workflows/agent.ts', 'workflows/agent-cycle.ts'])(
    '%s loads no research board or staged-run schemas',
    (root) => {
      const loaded = relative(loadedBy(path.join(SRC, root)));
      expect(loaded.filter((file) => forbidden.includes(file))).toEqual([]);
      expect(loaded).toContain('core/scratchpad.ts');
    },
  );

  it('the research supervisor does load them (the check can see them)', () => {
    expect(relative(loadedBy(path.join(SRC, 'workflows/research.ts')))).toEqual(
      expect.arrayContaining(['core/board-schema.ts', 'core/research.ts']),
    );
  });
});
