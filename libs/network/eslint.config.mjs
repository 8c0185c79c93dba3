import root from '../../eslint.config.mjs';

export default [
  ...root,
  {
    // The WhatsApp driver is the one place allowed to speak Baileys (see the root config).
    files: ['src/whatsapp/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
];
