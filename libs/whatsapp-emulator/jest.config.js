// The emulator speaks to the real Baileys (ES modules only): see jest.baileys.js.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'whatsapp-emulator',
  rootDir: __dirname,
  passWithNoTests: true,
  // A Baileys socket closed while it still waits for IQ answers keeps their 60 s timers (its end()
  // drops the listeners that would reject them, and the timers are not unref'd): without this the
  // run would idle a minute after the last test.
  forceExit: true,
});
