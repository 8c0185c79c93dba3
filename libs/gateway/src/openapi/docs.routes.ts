import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

/** This document's own shape, as far as a client relies on it (the rest is OpenAPI's). */
const openApiDocumentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** This OpenAPI document, as DocsController serves it. */
export const DOCS_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    tag: 'Status',
    summary: 'This OpenAPI document (human docs at /docs)',
    auth: 'none',
    response: openApiDocumentSchema,
  },
];
