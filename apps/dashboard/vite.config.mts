import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

// The dashboard is built once into dist/dashboard and served by every gateway under /dashboard/.
// Hashed file names let the gateway cache assets for a year; nothing is inlined, so the
// Content-Security-Policy can forbid inline scripts and styles.
export default defineConfig({
  root: here,
  base: '/dashboard/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
