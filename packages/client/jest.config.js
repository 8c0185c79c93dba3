module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'client',
  rootDir: __dirname,
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/'],
};
