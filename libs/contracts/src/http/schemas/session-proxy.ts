import { SESSION_PROXY_URL_MAX_LENGTH } from '@jumbe/domain';
import { z } from 'zod';
import { sessionIdField } from './common';

/** `PUT /session/proxy` (an extension, CONTRACT §11): the session's own proxy. */
export const sessionProxyBodySchema = z.strictObject({
  sessionId: sessionIdField,
  url: z
    .string()
    .min(1, 'url must be a proxy URL such as socks5://user:pass@proxy.example.com:1080')
    .max(SESSION_PROXY_URL_MAX_LENGTH, `url must be at most ${SESSION_PROXY_URL_MAX_LENGTH} characters`)
    .describe(
      '`http://`, `https://`, `socks5://` or `socks5h://` (the proxy resolves names), with optional `user:password@` and port; nothing after the port. Must be on a public address unless the operator allows private networks.',
    ),
});

/** A session's proxy as the API shows it: the password masked, never in clear. */
export const sessionProxySchema = z.object({
  sessionId: z.string(),
  proxy: z
    .string()
    .nullable()
    .describe(
      'The proxy with its password masked (`socks5://user:****@proxy.example.com:1080`); null: none, the session connects directly.',
    ),
  updatedAt: z.string().nullable().describe('When the proxy was set; null when there is none.'),
});
