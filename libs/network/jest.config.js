// The WhatsApp driver's tests load Baileys (ES modules only): see jest.baileys.js.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'network',
  rootDir: __dirname,
  passWithNoTests: true,
});
