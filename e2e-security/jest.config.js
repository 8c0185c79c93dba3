// The security suite: a running all-in-one server attacked as a careless or hostile client would.
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'e2e-security',
  rootDir: __dirname,
  // The same build step as the end-to-end suites: processes run from dist/.
  globalSetup: '<rootDir>/../e2e/src/support/build-once.js',
  // The contract test: every API response a test receives must match the served OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/../e2e/src/support/validate-responses.ts'],
  testTimeout: 120_000,
  maxWorkers: 1,
};
