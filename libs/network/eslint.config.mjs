import root, { restrictImports } from '../../eslint.config.mjs';

export default [
  ...root,
  // The WhatsApp driver is the one place allowed to speak Baileys (see the root config).
  ...restrictImports(['src/whatsapp/**/*.ts'], []),
];
