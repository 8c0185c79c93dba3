import root, { restrictImports } from '../../eslint.config.mjs';

export default [
  ...root,
  // The emulator is a test instrument for the WhatsApp driver: it speaks Baileys' codecs and protos.
  ...restrictImports(['src/**/*.ts'], []),
];
