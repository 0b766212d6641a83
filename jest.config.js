/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The examples import the package by name, as a user would; in the repo that name is the source.
  moduleNameMapper: {
    '^durable-scratchpad(/client)?$': '<rootDir>/src/client.ts',
    '^durable-scratchpad/worker$': '<rootDir>/src/worker.ts',
    '^durable-scratchpad/testing$': '<rootDir>/src/testing.ts',
  },
  // The cluster and fault suites have their own configs and commands: npm run test:cluster, npm run test:faults.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/', '<rootDir>/test/faults/'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // The slowest files first, also in a clean clone, which has no timings cached.
  testSequencer: '<rootDir>/test/sequencer.js',
  testTimeout: 60_000,
  // Two cores, three workers: most of a test's time is spent waiting on the server, on timers and on child processes.
  maxWorkers: 3,
  // The Temporal SDK loads once per jest worker rather than once per test file (see the file).
  runtime: '<rootDir>/test/shared-modules-runtime.js',
};
