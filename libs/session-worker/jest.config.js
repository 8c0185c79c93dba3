// Some tests run the worker on the real WhatsApp driver, which loads Baileys: see jest.baileys.js.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'session-worker',
  rootDir: __dirname,
  passWithNoTests: true,
  // session-host.emulator.spec.ts closes real Baileys sockets that still wait for IQ answers; their
  // 60 s timers are not unref'd (see libs/whatsapp-emulator/jest.config.js): do not idle on them.
  forceExit: true,
});
