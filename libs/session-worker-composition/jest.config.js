module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'session-worker-composition',
  rootDir: __dirname,
  passWithNoTests: true,
};
