module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-dispatcher',
  rootDir: __dirname,
  passWithNoTests: true,
};
