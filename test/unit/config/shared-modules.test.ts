import * as fs from 'node:fs';
import { z } from 'zod';
import { SHARED_WORKFLOW_MODULES } from '../../../src/config/paths';
import { loadedBy, relative } from '../../helpers/module-graph';

/*
 * A worker evaluates these modules once and shares them among all its workflow executions, after deep-freezing what
 * each exports (objects recursively, functions without their closures). So a shared module must keep no state of its
 * own, and must not export a zod schema bare: zod builds members on a schema on first use, which a frozen one refuses.
 */
const shared = new Set<string>();
for (const root of SHARED_WORKFLOW_MODULES) loadedBy(root, shared);

/** Paths from `exports` to every zod schema the SDK's freeze would reach, walking as it walks. */
function frozenSchemas(exports: unknown): string[] {
  const found: string[] = [];
  const seen = new WeakSet<object>();
  const walk = (value: unknown, at: string): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if ('_zod' in value) {
      found.push(at);
      return;
    }
    for (const key of Reflect.ownKeys(value))
      walk((value as Record<PropertyKey, unknown>)[key], `${at}.${String(key)}`);
  };
  walk(exports, 'exports');
  return found;
}

describe('modules shared among workflow executions', () => {
  it('are every workflow and what it loads', () => {
    expect(relative(shared)).toEqual(
      expect.arrayContaining([
        'workflows/agent/agent.ts',
        'workflows/research/research.ts',
        'core/scratchpad/scratchpad.ts',
        'core/tools/catalogue.ts',
      ]),
    );
  });

  it('export no zod schema where a freeze reaches it', () => {
    const offenders = [...shared].flatMap((file) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      frozenSchemas(require(file)).map((at) => `${relative([file])[0]}: ${at}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keep no module-scope state', () => {
    const stateful = [...shared].flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /^(export )?(let|var) |^(export )?const \w+ = new (Map|Set|WeakMap|WeakSet)\b/.test(line))
        .map((line) => `${relative([file])[0]}: ${line}`),
    );
    expect(stateful).toEqual([]);
  });

  it('the check sees a bare schema', () => {
    expect(frozenSchemas({ Bare: z.object({}), nested: { list: [z.string()] } })).toEqual([
      'exports.Bare',
      'exports.nested.list.0',
    ]);
  });
});
