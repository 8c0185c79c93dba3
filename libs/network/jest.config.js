module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'network',
  rootDir: __dirname,
  passWithNoTests: true,
};
