// Baileys 7 and a few of its dependencies ship as ES modules only. Node (>= 20.19) loads them with
// require() at run time, but Jest's module system does not on Node 20, so projects whose tests
// load the WhatsApp driver let SWC compile exactly those packages to CommonJS.
const { join } = require('node:path');

const esmOnly = [
  '@whiskeysockets/baileys',
  'whatsapp-rust-bridge',
  'p-queue',
  'p-timeout',
  'music-metadata',
  'file-type',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@borewit/text-codec',
  '@tokenizer/inflate',
  // @fastify/static's, which the gateway's in-process tests load with the whole HTTP app.
  'content-disposition',
  // A session's own proxy (docs/session-proxy.md), and the agent base they share.
  'https-proxy-agent',
  'socks-proxy-agent',
  'agent-base',
  'proxy-agent-negotiate',
];
const swcJs = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];

/** The given Jest config, able to load Baileys. */
module.exports = function withBaileys(config) {
  return {
    ...config,
    transform: { ...config.transform, '^.+\\.m?js$': swcJs },
    transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
    moduleNameMapper: {
      ...config.moduleNameMapper,
      // It exports only an `import` condition, which Jest's CommonJS resolver does not match.
      '^whatsapp-rust-bridge$': join(__dirname, 'node_modules/whatsapp-rust-bridge/dist/index.js'),
    },
  };
};
