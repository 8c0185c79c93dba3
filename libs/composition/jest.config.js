module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'composition',
  rootDir: __dirname,
  passWithNoTests: true,
};
