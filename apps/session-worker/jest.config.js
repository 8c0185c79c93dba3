module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'session-worker-app',
  rootDir: __dirname,
  passWithNoTests: true,
};
