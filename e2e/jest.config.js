// End-to-end tests: real processes from dist/, real HTTP, real PostgreSQL / Redis / NATS.
// The WhatsApp emulator suites run the emulator in the test process, which loads Baileys (ES
// modules only): see jest.baileys.js.
module.exports = require('../jest.baileys.js')({
  ...require('../jest.preset.js'),
  displayName: 'e2e',
  rootDir: __dirname,
  globalSetup: '<rootDir>/src/support/build-once.js',
  // The contract test: every API response a test receives must match the served OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/src/support/validate-responses.ts'],
  testTimeout: 120_000,
  // Suites start several processes each; running them one at a time keeps a 2-core CI honest.
  maxWorkers: 1,
});
