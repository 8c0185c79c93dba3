module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'operator',
  rootDir: __dirname,
  passWithNoTests: true,
};
