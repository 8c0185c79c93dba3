module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-dispatcher-composition',
  rootDir: __dirname,
  passWithNoTests: true,
};
