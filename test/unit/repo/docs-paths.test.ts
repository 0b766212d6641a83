import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** `src/a/{b,c}` → `src/a/b`, `src/a/c`; a trailing `/*` or `*` names the folder. */
export function expandPath(written: string): string[] {
  const trimmed = written.replace(/\/?\*$/, '').replace(/\/$/, '');
  const brace = /\{([^}]*)\}/.exec(trimmed);
  if (!brace) return [trimmed];
  return brace[1]!.split(',').flatMap((part) => expandPath(trimmed.replace(brace[0], part.trim())));
}

/** Every `src/...` path a document names in backticks. */
export function pathsNamedIn(text: string): string[] {
  return [...text.matchAll(/`(src\/[^`\s]*)`/g)].flatMap((match) => expandPath(match[1] as string));
}

describe('the docs name files that exist', () => {
  it.each(['README.md', 'docs/design.md'])('%s', (document) => {
    const text = fs.readFileSync(path.join(ROOT, document), 'utf8');
    const named = pathsNamedIn(text);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it('expands the shorthands the docs use', () => {
    expect(pathsNamedIn('`src/core/{cycle,agent}` and `src/workflows/cycle/*`')).toEqual([
      'src/core/cycle',
      'src/core/agent',
      'src/workflows/cycle',
    ]);
  });
});
