// The emulator speaks to the real Baileys (ES modules only): see jest.baileys.js.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'whatsapp-emulator',
  rootDir: __dirname,
  passWithNoTests: true,
});
