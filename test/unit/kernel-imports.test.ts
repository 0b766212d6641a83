import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', 'src');
/** The kernel: the cycle loop and its seam, and the pure rules it runs on. */
const KERNEL = ['workflows/cycle', 'core/cycle'];
/** Feature folders the kernel must not reach, not even for a type. */
const FEATURES = ['agent', 'research', 'staged'];

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The imports of `file` (value and type) that land in a feature folder, as `path: specifier`. */
export function featureImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:from|import|require)\s*\(?\s*'(\.[^']+)'/g)].flatMap((match) => {
    const target = path.relative(SRC, path.resolve(path.dirname(file), match[1] as string));
    const [runtime, feature] = target.split(path.sep);
    const isFeature = (runtime === 'workflows' || runtime === 'core') && FEATURES.includes(feature ?? '');
    return isFeature ? [`${path.relative(SRC, file)}: ${match[1]}`] : [];
  });
}

describe('the cycle kernel', () => {
  it('imports nothing from a feature folder (agent, research, staged)', () => {
    const offending = KERNEL.flatMap((folder) =>
      sourceFiles(path.join(SRC, folder)).flatMap((file) => featureImports(file, fs.readFileSync(file, 'utf8'))),
    );
    expect(offending).toEqual([]);
  });

  it('would see such an import', () => {
    const file = path.join(SRC, 'workflows/cycle/cycle-run.ts');
    const text =
      "import { BOARD_WRITE } from '../research/board-write';\nimport type { X } from '../../core/staged/rules';";
    expect(featureImports(file, text)).toEqual([
      'workflows/cycle/cycle-run.ts: ../research/board-write',
      'workflows/cycle/cycle-run.ts: ../../core/staged/rules',
    ]);
  });
});
