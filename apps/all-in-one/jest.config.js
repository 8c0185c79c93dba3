module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'all-in-one',
  rootDir: __dirname,
  passWithNoTests: true,
};
