// End-to-end tests: real processes from dist/, real HTTP, real PostgreSQL / Redis / NATS.
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'e2e',
  rootDir: __dirname,
  globalSetup: '<rootDir>/src/support/build-once.js',
  testTimeout: 120_000,
  // Suites start several processes each; running them one at a time keeps a 2-core CI honest.
  maxWorkers: 1,
};
