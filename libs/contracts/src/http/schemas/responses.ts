import { SESSION_STATES } from '@jumbe/domain';
import { z } from 'zod';
import { OUTBOUND_KINDS } from './outbound-message';

/** Response shapes, used for the OpenAPI document (the code builds them with the same fields). */
const isoTime = z.string().describe('ISO 8601 UTC time with milliseconds.');

export const errorBodySchema = z.object({
  message: z.string(),
  error: z.object({
    code: z.string(),
    details: z.array(z.object({ path: z.string(), problem: z.string() })).optional(),
  }),
});

export const sessionSchema = z.object({
  sessionId: z.string(),
  phoneNumber: z.string().nullable(),
  connected: z.boolean(),
  state: z.enum(SESSION_STATES),
  updatedAt: isoTime.nullable(),
  reason: z
    .string()
    .nullable()
    .describe(
      'Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. ' +
        'logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; ' +
        'qr_timeout: the QR or pairing code was not used in time; ' +
        'number_in_use: the number is connected to another session of this deployment; ' +
        'network_error: WhatsApp could not be reached before a login was offered; ' +
        'connection_replaced: the same device connected elsewhere (440); ' +
        'forbidden: WhatsApp refused the number (403); ' +
        'multidevice_mismatch: WhatsApp asked the device to re-sync (411); ' +
        'client_outdated: WhatsApp kept refusing the client version (405), after refetching it; ' +
        'bad_session: WhatsApp kept reporting a bad session (500); ' +
        'network_refused: WhatsApp kept refusing the connection (402 or 406).',
    ),
});

/** `GET /sessions`: every session, or one page of them when `limit` or `cursor` was given. */
export const sessionListSchema = z.object({
  data: z.array(sessionSchema),
  nextCursor: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Only when `limit` or `cursor` was given: pass it as `cursor` for the next page; null on the last page.',
    ),
});

export const qrSchema = z.object({ sessionId: z.string(), state: z.enum(SESSION_STATES), qr: z.string() });
export const pairingCodeResultSchema = z.object({
  sessionId: z.string(),
  state: z.literal('pairing_code_ready'),
  pairingCode: z.string(),
});
export const sentMessageSchema = z.object({
  key: z.object({ remoteJid: z.string(), fromMe: z.literal(true), id: z.string() }),
});
export const sendFailureSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  to: z.string().nullable(),
  type: z.string(),
  code: z.string(),
  message: z.string(),
  createdAt: isoTime,
});

export const deliverySchema = z.object({
  id: z.string(),
  event: z.string(),
  sessionId: z.string(),
  url: z.string().describe('The URL posted to, its query and fragment masked (`?token=****`).'),
  status: z.enum(['success', 'failed']),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  response: z.string().nullable(),
  durationMs: z.number(),
  createdAt: isoTime,
  attemptedAt: isoTime,
  attempt: z
    .number()
    .int()
    .min(1)
    .describe(
      '1 for the first POST of an event; its automatic retries (opt-in `retry`) are 2, 3, … under the same `id`.',
    ),
});
export const webhookConfigSchema = z.object({
  url: z.string().nullable().describe('The destination, its query and fragment masked (`?token=****`).'),
  enabled: z.boolean(),
  hasSecret: z.boolean(),
  /** Event types delivered (besides `webhook.test`, which always is). */
  events: z.array(z.string()),
  /** Opt-in automatic retries; null: none (the spec's default). */
  retry: z
    .object({ attempts: z.number().int() })
    .nullable()
    .describe('Automatic retries of a failed event; `null`: none (the spec).'),
});
export const webhookStateSchema = webhookConfigSchema.extend({ deliveries: z.array(deliverySchema) });

export const usageSchema = z.object({
  plan: z.string(),
  periodStart: isoTime,
  periodEnd: isoTime,
  apiHits: z.number(),
  apiHitLimit: z.number(),
  messagesSent: z.number(),
  sendFailures: z.number(),
  sessions: z.number(),
  sessionLimit: z.number(),
  /** API hits per UTC day of the cycle, first day through today (informative; the cap is apiHits). */
  hitsPerDay: z.array(z.object({ date: z.string(), apiHits: z.number() })),
});

export const planSchema = z.object({
  id: z.string(),
  name: z.string(),
  monthlyApiHits: z.number(),
  maxSessions: z.number(),
  createdAt: isoTime,
});
export const accountSchema = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  suspended: z.boolean(),
  createdAt: isoTime,
});
export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  scope: z.enum(['full', 'read']),
  prefix: z.string(),
  createdAt: isoTime,
  revokedAt: isoTime.nullable(),
  lastUsedAt: isoTime.nullable().describe('Last authenticated request, to about a minute.'),
});

export const healthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  version: z.string(),
  uptimeSeconds: z.number(),
  checks: z.record(z.string(), z.string()),
});
export const statusDocumentSchema = z.object({
  service: z.string(),
  status: z.string(),
  baseUrl: z.string(),
  docs: z.record(z.string(), z.string()),
});

export const outboxEntrySchema = z.object({
  id: z.string(),
  to: z.string(),
  /** A message's kind, or a chat action (read receipts, presence). */
  type: z.enum([...OUTBOUND_KINDS, 'read', 'presence']),
  content: z.record(z.string(), z.unknown()),
  createdAt: isoTime,
});

/** `{ message?, data }` around a payload schema. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ message: z.string().optional(), data });
}

/** A status the sandbox network reported for a sent message (`POST /sandbox/status`). */
export const sandboxStatusResultSchema = z.object({
  messageId: z.string(),
  to: z.string(),
  status: z.string(),
});
