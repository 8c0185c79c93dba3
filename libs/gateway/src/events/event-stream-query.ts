import {
  ApiError,
  DEFAULT_WEBHOOK_EVENTS,
  KNOWN_WEBHOOK_EVENTS,
  type ValidationProblem,
} from '@jumbe/contracts';
import { z } from 'zod';

/** `GET /api/v1/events?types=…&since=…` (OpenAPI; both optional). */
export const eventStreamQuerySchema = z.object({
  types: z
    .string()
    .optional()
    .describe(
      "Comma-separated event types to receive, e.g. `message.received,message.status`. Default: the types the account's webhook subscribed to, else `message.received`.",
    ),
  since: z
    .string()
    .optional()
    .describe(
      'Resume after this event id (the `id` of the last event received). `Last-Event-ID` takes precedence; without either, the stream starts with the next event.',
    ),
});

/** Types a stream can carry: every webhook event but `webhook.test`, which only the webhook receives. */
export const STREAMABLE_EVENTS: readonly string[] = KNOWN_WEBHOOK_EVENTS.filter(
  (name) => name !== 'webhook.test',
);

/**
 * The event types a stream delivers: those asked for in `types`, else those the account's webhook
 * subscribed to (`webhookEvents`, null without a webhook), else the spec's default.
 */
export function streamEventTypes(
  asked: string | undefined,
  webhookEvents: readonly string[] | null,
): string[] {
  if (asked === undefined) {
    const chosen = (webhookEvents ?? DEFAULT_WEBHOOK_EVENTS).filter((name) =>
      STREAMABLE_EVENTS.includes(name),
    );
    return chosen.length > 0 ? chosen : [...DEFAULT_WEBHOOK_EVENTS];
  }
  const names = asked
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !STREAMABLE_EVENTS.includes(name));
  if (names.length === 0 || unknown.length > 0) {
    const problem: ValidationProblem = {
      path: '/types',
      problem:
        names.length === 0
          ? `list at least one event type: ${STREAMABLE_EVENTS.join(', ')}`
          : `unknown event type ${unknown.map((name) => `"${name}"`).join(', ')}; use ${STREAMABLE_EVENTS.join(', ')}`,
    };
    throw new ApiError('validation_error', `query: types: ${problem.problem}`, [problem]);
  }
  return [...new Set(names)];
}

/**
 * The id of the last event the client saw, or null (start with the next event): the
 * `Last-Event-ID` header (what a browser's EventSource sends when it reconnects) wins over `since`.
 */
export function lastSeenEventId(
  lastEventIdHeader: string | string[] | undefined,
  since: string | undefined,
): number | null {
  const header = Array.isArray(lastEventIdHeader) ? lastEventIdHeader[0] : lastEventIdHeader;
  const [raw, path] =
    header !== undefined && header.trim() !== '' ? [header.trim(), '/Last-Event-ID'] : [since, '/since'];
  if (raw === undefined) return null;
  if (!/^\d{1,15}$/.test(raw)) {
    const problem = { path, problem: 'an event id: the decimal `id` of an event this stream sent' };
    throw new ApiError('validation_error', `${path.slice(1)}: ${problem.problem}`, [problem]);
  }
  return Number(raw);
}
