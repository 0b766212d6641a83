const { createRequire } = require('node:module');
const path = require('node:path');
const Runtime = require('jest-runtime').default;

/*
 * Jest evaluates every module again for each test file, in that file's own VM context. For the Temporal SDK alone that
 * is about half a second of CPU a file (its protobuf root, the client, the worker and their dependencies), in more than
 * a hundred files. This runtime loads the packages below with Node's own `require` instead, once per jest worker, as
 * Node loads them for a user; test files and the project's code still load in the file's context. These packages keep
 * no state a test changes and are written for crossing realms (the SDK's workflow sandbox is one), telling errors and
 * arrays by shape rather than `instanceof`; values they make belong to Node's realm, which `toEqual` and `toMatchObject`
 * compare as they compare the file's own. Left per file: the OpenTelemetry packages, which keep the tracer provider on
 * the global object of their realm, and the model and MCP SDKs, whose mocks and errors the tests build.
 */
const SHARED = /^(@temporalio\/(?!interceptors-opentelemetry)|(zod|yaml|ajv|ioredis|playwright-core|better-sqlite3|re2-wasm)(\/|$))/;

class SharedModulesRuntime extends Runtime {
  requireModule(from, moduleName, options, isRequireActual) {
    if (moduleName && SHARED.test(moduleName) && !options?.isInternalModule) {
      return createRequire(path.resolve(from))(moduleName);
    }
    return super.requireModule(from, moduleName, options, isRequireActual);
  }
}

module.exports = SharedModulesRuntime;
