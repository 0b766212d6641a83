const fs = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/*
 * Jest evaluates every module again for each test file, in that file's own VM context. For the Temporal SDK alone that
 * is about half a second of CPU a file (its protobuf root, the client, the worker and their dependencies), in more than
 * a hundred files. This runtime loads the packages below with Node's own `require` instead, once per jest worker, as
 * Node loads them for a user; test files and the project's code still load in the file's context. These packages keep
 * no state a test changes and are written for crossing realms (the SDK's workflow sandbox is one), telling errors and
 * arrays by shape rather than `instanceof`; values they make belong to Node's realm, which `toEqual` and `toMatchObject`
 * compare as they compare the file's own. Left per file: the OpenTelemetry packages, which keep their tracer provider
 * on the global object of their realm, and every package not named here.
 */
const SHARED =
  /^(@temporalio\/(?!interceptors-opentelemetry)|(zod|yaml|ajv|ioredis|playwright-core|better-sqlite3|re2-wasm)(\/|$))/;

/**
 * Loaded once, the SDK keeps one stack-trace handler for the process, as in a worker's own thread, and it now maps each
 * workflow error's stack through the bundle's source map (per file, in Jest's realm, it never ran). The SDK parses the
 * source map again for every worker it creates (a 4 MB map: about 50 ms, more on a busy machine); test workers all run
 * the same bundle, so each distinct map is parsed once per jest worker and its parse handed to later workers.
 *
 * Nor does the SDK's promise hook run here. Test workers run workflows on the test's thread (`debugMode`, see
 * test/helpers/worker.ts), where that hook runs for every promise of the process (the test's, the client's, the
 * activities'), looks up the workflow context of each and, for each workflow promise, captures a stack and maps it. It
 * serves only the workflow stack-trace query, which no test reads, and took about a tenth of the workflow files' CPU.
 * Users' workers, on a thread of their own, keep it.
 */
let handlersPatched = false;
function patchWorkflowHandlers(load) {
  if (handlersPatched) return;
  handlersPatched = true;
  const { globalHandlers } = load('@temporalio/worker/lib/workflow/vm-shared');
  globalHandlers.setPromiseHook = () => undefined;
  const parsed = new Map();
  const add = globalHandlers.addWorkflowBundle.bind(globalHandlers);
  globalHandlers.addWorkflowBundle = async (bundle) => {
    const known = parsed.get(bundle.filename);
    if (known?.mappings === bundle.sourceMap.mappings) {
      globalHandlers.bundleFilenameToSourceMapConsumer.set(bundle.filename, known.consumer);
      return;
    }
    await add(bundle);
    const consumer = globalHandlers.bundleFilenameToSourceMapConsumer.get(bundle.filename);
    parsed.set(bundle.filename, { mappings: bundle.sourceMap.mappings, consumer });
  };
  // A bundle given by path, read once per jest worker and file version: the SDK reads it again for every worker, splits
  // off and parses its source map, and evaluates it in a throwaway context so that a debugger finds its breakpoints.
  const { Worker } = load('@temporalio/worker/lib/worker');
  const read = new Map();
  const getOrCreateBundle = Worker.getOrCreateBundle.bind(Worker);
  Worker.getOrCreateBundle = async (options, logger) => {
    const codePath = options.workflowBundle?.codePath;
    if (typeof codePath !== 'string' || options.workflowBundle.code !== undefined) {
      return getOrCreateBundle(options, logger);
    }
    const { mtimeMs, size } = fs.statSync(codePath);
    const version = `${codePath}\0${mtimeMs}\0${size}`;
    if (!read.has(version)) read.set(version, getOrCreateBundle(options, logger));
    return read.get(version);
  };
}

/*
 * Jest compiles each module of each test file with `vm.compileFunction`, which on Node 20 has no compilation cache: a
 * module that twenty files import is parsed and compiled twenty times in the same worker, and each function it runs is
 * compiled again in each file. A `vm.Script` of the same text is found in V8's in-memory cache, whose compiled
 * functions every context shares: about a tenth of a second of CPU a file for the project's code alone. A module that
 * does not parse goes back to jest's own compile, for jest's own error.
 */
function compileWithCache(executor, compile) {
  return function (scriptSource, filename) {
    const vmContext = executor.environment.getVmContext();
    if (vmContext == null) return null;
    const opening = `(function (${executor.injectedModuleParameters.join(', ')}) {`;
    let script;
    try {
      script = new vm.Script(`${opening}${scriptSource}\n})`, {
        filename,
        columnOffset: -opening.length,
        importModuleDynamically: (specifier, _script, attributes) =>
          executor.dynamicImport(specifier, filename, vmContext, attributes),
      });
    } catch (error) {
      if (error instanceof SyntaxError) return compile(scriptSource, filename);
      throw error;
    }
    return script.runInContext(vmContext);
  };
}

class SharedModulesRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    // V8's coverage counts offsets in the compiled text, which the opening above would shift.
    const coverage = args[5];
    if (coverage?.collectCoverage && coverage.coverageProvider === 'v8') return;
    this.executor.compile = compileWithCache(this.executor, this.executor.compile.bind(this.executor));
  }

  requireModule(from, moduleName, options, isRequireActual) {
    if (moduleName && SHARED.test(moduleName) && !options?.isInternalModule) {
      const load = createRequire(path.resolve(from));
      if (moduleName.startsWith('@temporalio/worker')) patchWorkflowHandlers(load);
      return load(moduleName);
    }
    return super.requireModule(from, moduleName, options, isRequireActual);
  }
}

module.exports = SharedModulesRuntime;
