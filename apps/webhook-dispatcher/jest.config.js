module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-dispatcher-app',
  rootDir: __dirname,
  passWithNoTests: true,
};
