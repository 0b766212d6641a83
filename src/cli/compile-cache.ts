import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as NodeModule from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { privateTempDirectory, removeStale, writeAside } from '../config/temp-files';

/** The parts of Node's CommonJS loader a module's `require` is made of (as Node makes it, lib/internal/modules). */
interface LoadedModule {
  exports: unknown;
  require(id: string): unknown;
}
interface CommonJsLoader {
  prototype: { _compile(this: LoadedModule, content: string, filename: string, format?: string): unknown };
  wrapper: readonly [string, string];
  _resolveFilename(request: string, parent: LoadedModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: LoadedModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}

/** Kept code goes this long after it was written unless the command sweeping read it; so does another Node's folder. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
/** `import(`, also with space or a comment before the parenthesis. */
const DYNAMIC_IMPORT = /\bimport\s*(\(|\/[*/])/;
/** Each kept file opens with the SHA-1 of the rest. */
const DIGEST_BYTES = 20;

export interface CompileCacheStats {
  /** Modules compiled from kept code. */
  hits: number;
  /** Modules compiled from source, kept at exit. */
  misses: number;
}

let stats: CompileCacheStats | undefined;

/** What the cache did in this process so far; undefined when it is off or Node's own cache serves it. */
export function compileCacheStats(): CompileCacheStats | undefined {
  return stats && { ...stats };
}

/**
 * Keeps V8's compiled code of the modules a command loads, in a folder of this user's own in the temporary directory,
 * so the next command skips parsing and compiling them: most commands load the SDK, gRPC and protobuf code, some 400
 * modules, and compiling them was about a third of a short command's CPU. Node 22.1 and later do this themselves
 * (`module.enableCompileCache`); on Node 20 the CommonJS loader's compile step is wrapped to hand V8 the kept code, and
 * at exit V8's code of each module compiled from source, with the functions that ran, is kept. Off with
 * `NODE_DISABLE_COMPILE_CACHE=1`, as Node's own, and under a policy. What the wrap does not do as Node does: detect a
 * `require()` of an ES module that imports the requiring module back (this package has none).
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE || stats) return;
  // A policy checks each module's source as Node compiles it: the cache would step around it.
  if (/--experimental-policy|--policy-integrity/.test([...process.execArgv, env.NODE_OPTIONS ?? ''].join(' '))) return;
  let directory: string | undefined;
  try {
    directory = privateTempDirectory('durable-scratchpad-compile-cache');
  } catch {
    return;
  }
  if (!directory) return;
  const builtIn = (NodeModule as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache;
  if (builtIn) {
    builtIn(directory);
    return;
  }
  cacheCommonJs(path.join(directory, `${process.version}-${process.arch}`));
}

function cacheCommonJs(directory: string): void {
  const loader = (NodeModule as unknown as { Module: CommonJsLoader }).Module;
  const compile = loader.prototype._compile;
  const [opening, closing] = loader.wrapper;
  const compiled: Array<{ file: string; script: vm.Script }> = [];
  const used = new Set<string>();
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch {
    return;
  }
  const counts = (stats = { hits: 0, misses: 0 });

  loader.prototype._compile = function (content, filename, format) {
    // A script compiled here has no loader for `import()`, and Node maps stacks through source maps only for the
    // modules it compiles itself: such modules (a few in a command's hundreds), and all with source maps on, compile as
    // before.
    if (
      (format !== undefined && format !== 'commonjs') ||
      (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled
    ) {
      return compile.call(this, content, filename, format);
    }
    const file = path.join(directory, createHash('sha1').update(`${filename}\0`).update(content).digest('hex'));
    const cachedData = readKept(file);
    // Code is kept only for a module without `import()`: a module with kept code need not be searched again.
    if (!cachedData && DYNAMIC_IMPORT.test(content)) return compile.call(this, content, filename, format);
    let script: vm.Script;
    try {
      // A leading `#!` line is a comment only at the start of a script: kept as an empty line.
      script = new vm.Script(`${opening}${content.replace(/^#!.*/, '')}${closing}`, {
        filename,
        columnOffset: -opening.length,
        cachedData,
      });
    } catch (error) {
      // Node's own compile tells an ES module from a mistake, and says which.
      if (error instanceof SyntaxError) return compile.call(this, content, filename, format);
      throw error;
    }
    if (cachedData && !script.cachedDataRejected) {
      counts.hits += 1;
      used.add(path.basename(file));
    } else {
      counts.misses += 1;
      compiled.push({ file, script });
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireOf(this, loader), this, filename, path.dirname(filename));
  };

  process.once('exit', () => keep(directory, compiled, used));
}

/** The `require` a module gets, as Node's loader makes it. */
function requireOf(module: LoadedModule, loader: CommonJsLoader) {
  const load = (id: string) => module.require(id);
  const resolve = (request: string, options?: unknown) => loader._resolveFilename(request, module, false, options);
  resolve.paths = (request: string) => loader._resolveLookupPaths(request, module);
  return Object.assign(load, {
    resolve,
    main: require.main,
    extensions: loader._extensions,
    cache: loader._cache,
  });
}

/**
 * V8's code kept at `file`, if it is whole: V8 does not check the code it is handed, and damaged code could crash or
 * misbehave in every later command.
 */
function readKept(file: string): Buffer | undefined {
  let kept: Buffer;
  try {
    kept = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const data = kept.subarray(DIGEST_BYTES);
  const whole =
    kept.length > DIGEST_BYTES && createHash('sha1').update(data).digest().equals(kept.subarray(0, DIGEST_BYTES));
  return whole ? data : undefined;
}

/**
 * Keeps each module's code after the SHA-1 of it. Code this process neither wrote nor read goes once it is a week old,
 * and so do the folders of other Node versions.
 */
function keep(
  directory: string,
  compiled: ReadonlyArray<{ file: string; script: vm.Script }>,
  used: ReadonlySet<string>,
): void {
  if (compiled.length === 0) return;
  const kept = new Set(used);
  try {
    for (const { file, script } of compiled) {
      const data = script.createCachedData();
      writeAside(file, Buffer.concat([createHash('sha1').update(data).digest(), data]), 0o600);
      kept.add(path.basename(file));
    }
    const stale = Date.now() - STALE_MS;
    removeStale(directory, stale, (name) => kept.has(name));
    removeStale(path.dirname(directory), stale, (name) => name === path.basename(directory));
  } catch {
    // A cache that cannot be written costs the next command its compile, nothing more.
  }
}
