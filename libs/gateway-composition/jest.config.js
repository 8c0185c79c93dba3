module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'gateway-composition',
  rootDir: __dirname,
  passWithNoTests: true,
};
