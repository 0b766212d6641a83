import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');
const UNIT = path.resolve(__dirname, '..');
const MAX_LINES = 250;

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The top folder under src/ a module lives in (`config` for src/config/index.ts). */
function folderOf(file: string): string {
  const [first, second] = path.relative(SRC, file).split(path.sep);
  return second === undefined ? '.' : (first as string);
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** Folder → folders it imports from (type imports included: a circle of types is a circle of design). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = resolveImport(file, match[1] as string);
      if (!target) continue;
      const to = folderOf(target);
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

function findCircle(graph: Map<string, Set<string>>): string[] | undefined {
  const visiting: string[] = [];
  const done = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (visiting.includes(node)) return [...visiting.slice(visiting.indexOf(node)), node];
    if (done.has(node)) return undefined;
    visiting.push(node);
    for (const next of graph.get(node) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    visiting.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return undefined;
}

describe('source layout', () => {
  it('has no import circle between folders of src/', () => {
    expect(findCircle(folderGraph())).toBeUndefined();
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['client', new Set(['workflows'])],
      ['workflows', new Set(['activities'])],
      ['activities', new Set(['client'])],
    ]);
    expect(findCircle(graph)).toEqual(['client', 'workflows', 'activities', 'client']);
  });

  it(`keeps every file in src/ within ${MAX_LINES} lines`, () => {
    const long = sourceFiles(SRC)
      .map((file) => ({ file: path.relative(SRC, file), lines: fs.readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter((entry) => entry.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

/** Every folder below `directory`, relative to it. */
function foldersBelow(directory: string, under = ''): string[] {
  return fs
    .readdirSync(path.join(directory, under), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = under ? `${under}/${entry.name}` : entry.name;
      return [folder, ...foldersBelow(directory, folder)];
    });
}

describe('unit test layout', () => {
  // A module's unit test sits where the module sits: test/unit/core/scratchpad/ for src/core/scratchpad/. Tests of the
  // repository itself (layout, docs, packaging) sit in repo/.
  it('has a folder of src/ for each folder of test/unit/ but repo/', () => {
    const strays = foldersBelow(UNIT).filter(
      (folder) => folder.split('/')[0] !== 'repo' && !fs.existsSync(path.join(SRC, folder)),
    );
    expect(strays).toEqual([]);
  });
});
