import { apiKeySchema, createKeySchema, envelope } from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

const accountParams = z.object({ id: z.string() });

/** The account's own API keys, as KeysController serves them. */
export const KEY_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/keys',
    tag: 'Keys',
    summary: "List the account's API keys (full scope)",
    auth: 'key',
    response: envelope(z.array(apiKeySchema)),
    errors: ['forbidden'],
  },
  {
    method: 'POST',
    path: '/api/v1/keys',
    tag: 'Keys',
    summary: 'Create an API key for the account (full scope; the key is shown once)',
    auth: 'key',
    body: createKeySchema,
    response: envelope(apiKeySchema).extend({ key: z.string() }),
    successStatus: 201,
    errors: ['forbidden', 'validation_error'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/{id}',
    tag: 'Keys',
    summary: "Revoke one of the account's API keys (full scope)",
    auth: 'key',
    params: accountParams,
    response: envelope(apiKeySchema),
    errors: ['forbidden', 'not_found'],
  },
];
