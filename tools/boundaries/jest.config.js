module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'boundaries',
  rootDir: __dirname,
};
