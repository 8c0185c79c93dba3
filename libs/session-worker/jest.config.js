// Some tests run the worker on the real WhatsApp driver, which loads Baileys: see jest.baileys.js.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'session-worker',
  rootDir: __dirname,
  passWithNoTests: true,
});
