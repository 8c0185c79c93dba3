import root, { restrictImports, restricted } from '../../eslint.config.mjs';

export default [
  ...root,
  // Pure: no Node I/O module (Nx's boundary rule bans the I/O libraries, not Node's built-ins).
  ...restrictImports(['**/*.ts'], [restricted.baileys, restricted.nodeIo]),
];
