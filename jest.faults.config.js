/** The fault suite (npm run test:faults): processes killed with SIGKILL, calls cut mid-query; slow, so not part of `npm test`. */
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/faults'],
  testPathIgnorePatterns: ['/node_modules/'],
  // Each file starts the servers it kills; none shares the suite's dev server.
  globalSetup: undefined,
  globalTeardown: undefined,
  // One file at a time: recovery times are measured, and the machine has two cores.
  maxWorkers: 1,
  testTimeout: 900_000,
};
