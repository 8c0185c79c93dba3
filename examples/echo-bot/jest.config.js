// The example is plain JavaScript; its tests may load the receiver and the signer from the
// repository's TypeScript sources (transformed by the preset), so they need no build.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'echo-bot',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.spec.js'],
};
