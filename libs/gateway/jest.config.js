// The in-process HTTP tests load @fastify/static, whose content-disposition is an ES module only:
// see jest.baileys.js, which compiles such packages to CommonJS for Jest on Node 20.
module.exports = require('../../jest.baileys.js')({
  ...require('../../jest.preset.js'),
  displayName: 'gateway',
  rootDir: __dirname,
  passWithNoTests: true,
});
