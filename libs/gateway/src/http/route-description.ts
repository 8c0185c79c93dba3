import type { JumbeConfig } from '@jumbe/config';
import type { ErrorCode } from '@jumbe/contracts';
import type { z } from 'zod';

/** Who may call a route: anyone, a customer's API key (or dashboard session), or the operator. */
export type RouteAuth = 'none' | 'key' | 'admin';

/** The messaging network a deployment runs on (JUMBE_NETWORK). */
export type NetworkName = JumbeConfig['network'];

/** One route of the public contract, described from the same schemas that validate it. */
export interface RouteDescription {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  summary: string;
  auth: RouteAuth;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response: z.ZodType;
  /** The success response is a file, described here, instead of `response` as JSON. */
  file?: string;
  /** Other media types the success response comes in (chosen by the request), each described. */
  alsoAnswers?: Record<string, string>;
  /** Error statuses answered with the success body instead of the error envelope, each described. */
  successBodyOn?: Record<number, string>;
  successStatus?: number;
  errors?: ErrorCode[];
  /** Served only on this network: the sandbox's control routes do not exist on WhatsApp (CONTRACT §9). */
  network?: NetworkName;
}

/** What an action through a linked session answers when the session or network cannot do it. */
export const SESSION_ACTION_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'invalid_session_id',
  'session_not_connected',
  'network_error',
  'timeout',
  'unavailable',
];
