const { createRequire } = require('node:module');
const path = require('node:path');
const Runtime = require('jest-runtime').default;

/*
 * Jest evaluates every module again for each test file, in that file's own VM context. For the Temporal SDK that is
 * about half a second of CPU a file (its protobuf root, the client, the worker and their dependencies), in more than a
 * hundred files. This runtime loads the SDK's packages with Node's own `require` instead, once per jest worker, as
 * Node loads them for a user: test files and the project's code still load in the file's context. The SDK is written
 * for crossing realms (its workflow sandbox is another context), duck-typing errors rather than `instanceof Error`.
 * The OpenTelemetry interceptors stay per file: they keep the tracer provider on the global object of their realm.
 */
const SHARED = /^@temporalio\/(?!interceptors-opentelemetry)/;

class SharedModulesRuntime extends Runtime {
  requireModule(from, moduleName, options, isRequireActual) {
    if (moduleName && SHARED.test(moduleName) && !options?.isInternalModule) {
      return createRequire(path.resolve(from))(moduleName);
    }
    return super.requireModule(from, moduleName, options, isRequireActual);
  }
}

module.exports = SharedModulesRuntime;
