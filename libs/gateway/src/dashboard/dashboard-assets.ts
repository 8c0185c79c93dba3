import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Nothing but this gateway: scripts, styles and API calls from the same origin, the QR code as a
 * data: image, no inline code, no frames, no forms posted elsewhere.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names assets by content hash, so a cached copy can never be stale. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * Where `tools/build.mjs` put the bundle: dist/dashboard, next to dist/libs. Compiled, this file
 * is dist/libs/gateway/src/dashboard/ (the working directory's dist/ is the fallback).
 */
export function dashboardDirectory(): string | null {
  const candidates = [
    resolve(__dirname, '..', '..', '..', '..', 'dashboard'),
    join(process.cwd(), 'dist', 'dashboard'),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/**
 * Serves the dashboard's static bundle under /dashboard/ with long-lived caching for hashed
 * assets, no caching for the page that names them, and the strict CSP on every response.
 */
export async function serveDashboard(app: NestFastifyApplication, directory: string | null): Promise<void> {
  if (directory === null) return;
  app
    .getHttpAdapter()
    .getInstance()
    .get('/dashboard', (_request, reply) => {
      void reply.redirect('/dashboard/', 308);
    });
  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/dashboard/',
    index: ['index.html'],
    wildcard: true,
    decorateReply: false,
    // setHeaders sets Cache-Control itself: hashed assets for a year, the page never unchecked.
    cacheControl: false,
    // @fastify/static 9 hands over the raw response here: one setHeader call per header.
    setHeaders: (response, path) => {
      response.setHeader('content-security-policy', DASHBOARD_CSP);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('referrer-policy', 'no-referrer');
      response.setHeader('x-frame-options', 'DENY');
      response.setHeader('cache-control', path.includes('/assets/') ? HASHED_ASSET_CACHE : 'no-cache');
    },
  });
}
