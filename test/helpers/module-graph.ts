import * as fs from 'node:fs';
import * as path from 'node:path';

export const SRC = path.resolve(__dirname, '..', '..', 'src');

/** Modules a value import of `file` evaluates, transitively (type-only imports are erased and load nothing). */
export function loadedBy(file: string, seen = new Set<string>()): Set<string> {
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

/** Paths relative to src/, for readable assertions. */
export const relative = (files: Iterable<string>): string[] => [...files].map((file) => path.relative(SRC, file));
