'use strict';
// Where the bot finds @jumbe/webhook-receiver. A real bot simply `npm install`s the package; inside
// this repository the example uses a build of it instead, whichever exists.
const { join } = require('node:path');

const CANDIDATES = [
  // 1. Installed from npm (or `npm install ../../libs/webhook-receiver`).
  '@jumbe/webhook-receiver',
  // 2. The repository build: `npm run build` (also run by `npm start`) compiles every lib into dist/.
  join(__dirname, '..', '..', 'dist', 'libs', 'webhook-receiver', 'src', 'index.js'),
  // 3. The package's own build: `npx tsc -p libs/webhook-receiver/tsconfig.lib.json`.
  join(__dirname, '..', '..', 'libs', 'webhook-receiver', 'dist', 'index.js'),
];

function loadReceiver() {
  for (const candidate of CANDIDATES) {
    try {
      return require(candidate);
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes(candidate)) throw error;
    }
  }
  throw new Error('@jumbe/webhook-receiver is not built: run `npm run build` in the repository root first');
}

module.exports = { loadReceiver };
