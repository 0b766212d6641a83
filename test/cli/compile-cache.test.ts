import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/*
 * The command's compile cache (src/cli/compile-cache.ts), in processes of its own as the command runs it: a module
 * loads the same from kept code as from source, kept code that no longer fits is compiled again, and a folder another
 * user could write is not used.
 */

const CACHE = path.resolve(__dirname, '../../dist/src/cli/compile-cache.js');
const builtIn = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

let tmp: string;
let modules: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-'));
  modules = path.join(tmp, 'modules');
  fs.mkdirSync(modules);
  // What a module sees of its loader, and a stack line of its own.
  fs.writeFileSync(
    path.join(modules, 'main.js'),
    [
      "'use strict';",
      "const other = require('./other');",
      'function where() { return new Error().stack.split("\\n")[1].trim(); }',
      'module.exports = {',
      '  dirname: __dirname, filename: __filename, self: this === module.exports, other,',
      "  resolved: require.resolve('./other'), paths: require.resolve.paths('x').length > 0,",
      '  main: require.main === process.mainModule, cached: Object.keys(require.cache).length > 0,',
      '  where: where(),',
      '};',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(modules, 'other.js'), '#!/usr/bin/env node\nmodule.exports = { value: 1 };\n');
});

afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Loads `module` in a process of its own whose main module (as a command's bin) turns the cache on first. */
function load(module = './main', env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const runner = path.join(tmp, 'runner.js');
  fs.writeFileSync(
    runner,
    [
      `const cache = require(${JSON.stringify(CACHE)});`,
      'cache.enableCompileCache();',
      `const loaded = require(${JSON.stringify(path.join(modules, module))});`,
      'console.log(JSON.stringify({ loaded, stats: cache.compileCacheStats() ?? null }));',
    ].join('\n'),
  );
  const output = execFileSync(process.execPath, [...nodeArgs, runner], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output) as { loaded: Record<string, unknown>; stats: { hits: number; misses: number } | null };
}

function keptFiles() {
  const root = path.join(tmp, `durable-scratchpad-compile-cache-${process.getuid?.() ?? 0}`);
  return fs
    .readdirSync(root)
    .flatMap((version) => fs.readdirSync(path.join(root, version)).map((name) => path.join(root, version, name)));
}

if (builtIn) {
  test("Node's own compile cache keeps the code in the same folder", () => {
    const script = `require(${JSON.stringify(CACHE)}).enableCompileCache(); console.log(require('node:module').getCompileCacheDir());`;
    const output = execFileSync(process.execPath, ['-e', script], { env: { TMPDIR: tmp }, encoding: 'utf8' });
    expect(output.trim()).toContain(`durable-scratchpad-compile-cache-${process.getuid?.() ?? 0}`);
  });
}

(builtIn ? describe.skip : describe)('the compile cache on Node 20', () => {
  test('a module loads the same from kept code as from source', () => {
    const uncached = load('./main', { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(uncached.stats).toBeNull();

    const first = load();
    expect(first.stats).toEqual({ hits: 0, misses: 2 });
    expect(keptFiles()).toHaveLength(2);

    const second = load();
    expect(second.stats).toEqual({ hits: 2, misses: 0 });
    for (const run of [first, second]) expect(run.loaded).toEqual(uncached.loaded);
    expect(uncached.loaded).toMatchObject({
      dirname: modules,
      filename: path.join(modules, 'main.js'),
      self: true,
      other: { value: 1 },
      resolved: path.join(modules, 'other.js'),
      paths: true,
      cached: true,
    });
    // The wrapper adds no line and, on the first line, no column.
    expect(uncached.loaded.where).toMatch(/main\.js:3:/);
  });

  test('kept code that does not fit is compiled again and kept anew; changed code is a new entry', () => {
    load();
    for (const file of keptFiles()) fs.writeFileSync(file, 'not code');
    const damaged = load();
    expect(damaged.stats).toEqual({ hits: 0, misses: 2 });
    expect(damaged.loaded.other).toEqual({ value: 1 });
    expect(load().stats).toEqual({ hits: 2, misses: 0 });

    // One bit flipped in the code itself, which V8 would take: the checksum refuses it.
    for (const file of keptFiles()) {
      const kept = fs.readFileSync(file);
      const middle = Math.floor(kept.length / 2);
      kept.writeUInt8(kept.readUInt8(middle) ^ 1, middle);
      fs.writeFileSync(file, kept);
    }
    const flipped = load();
    expect(flipped.stats).toEqual({ hits: 0, misses: 2 });
    expect(flipped.loaded).toEqual(load('./main', { NODE_DISABLE_COMPILE_CACHE: '1' }).loaded);
    expect(load().stats).toEqual({ hits: 2, misses: 0 });

    fs.writeFileSync(path.join(modules, 'other.js'), 'module.exports = { value: 2 };\n');
    const changed = load();
    expect(changed.stats).toEqual({ hits: 1, misses: 1 });
    expect(changed.loaded.other).toEqual({ value: 2 });
  });

  test('a module that imports an ES module is compiled by Node, as without the cache', () => {
    fs.writeFileSync(path.join(modules, 'esm.mjs'), 'export const value = 3;\n');
    fs.writeFileSync(
      path.join(modules, 'dynamic.js'),
      "module.exports = { pending: import('./esm.mjs').then((esm) => esm.value) };\n",
    );
    const script = (env: Record<string, string>) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(CACHE)}).enableCompileCache();` +
            `require(${JSON.stringify(path.join(modules, 'dynamic.js'))}).pending.then((value) => ` +
            `console.log(value, JSON.stringify(require(${JSON.stringify(CACHE)}).compileCacheStats() ?? null)));`,
        ],
        { env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, ...env }, encoding: 'utf8' },
      ).trim();
    expect(script({})).toBe('3 {"hits":0,"misses":0}');
    expect(script({})).toBe('3 {"hits":0,"misses":0}');
  });

  test('kept code of other code goes once a week old, when a command keeps new code', () => {
    load();
    const folder = path.dirname(keptFiles()[0]!);
    const old = path.join(folder, 'old');
    const recent = path.join(folder, 'recent');
    for (const file of [old, recent]) fs.writeFileSync(file, 'code of another version');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    fs.utimesSync(old, eightDaysAgo, eightDaysAgo);
    expect(load().stats).toEqual({ hits: 2, misses: 0 });
    expect(fs.existsSync(old)).toBe(true);

    fs.writeFileSync(path.join(modules, 'other.js'), 'module.exports = { value: 2 };\n');
    expect(load().stats).toEqual({ hits: 1, misses: 1 });
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
  });

  test('with source maps on, Node compiles every module, so stacks map as without the cache', () => {
    const run = load('./main', {}, ['--enable-source-maps']);
    expect(run.stats).toEqual({ hits: 0, misses: 0 });
    expect(run.loaded.other).toEqual({ value: 1 });
  });

  test("a module that does not parse fails with Node's own message", () => {
    fs.writeFileSync(path.join(modules, 'broken.js'), 'module.exports = {;\n');
    const message = (env: Record<string, string>) => {
      try {
        load('./broken', env);
      } catch (error) {
        return String((error as { stderr?: string }).stderr).match(/SyntaxError: .*/)?.[0];
      }
      return 'loaded';
    };
    expect(message({})).toBe(message({ NODE_DISABLE_COMPILE_CACHE: '1' }));
    expect(message({})).toMatch(/^SyntaxError: Unexpected token/);
  });

  test('a cache folder another user may write is not used', () => {
    const root = path.join(tmp, `durable-scratchpad-compile-cache-${process.getuid?.() ?? 0}`);
    fs.mkdirSync(root, { mode: 0o777 });
    fs.chmodSync(root, 0o777);
    const run = load();
    expect(run.stats).toBeNull();
    expect(run.loaded.other).toEqual({ value: 1 });
    expect(fs.readdirSync(root)).toEqual([]);
  });
});
