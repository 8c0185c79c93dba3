module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'coordination',
  rootDir: __dirname,
  passWithNoTests: true,
};
