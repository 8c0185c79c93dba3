module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-receiver',
  rootDir: __dirname,
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/'],
};
