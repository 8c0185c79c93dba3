import root from '../../eslint.config.mjs';

export default [
  ...root,
  {
    // The emulator is a test instrument for the WhatsApp driver: it speaks Baileys' codecs and protos.
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
];
