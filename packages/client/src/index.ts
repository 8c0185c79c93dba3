// @jumbe/client: a typed client for Jumbe's HTTP API, generated from its OpenAPI document. Runs in
// Node 20+ and browsers. The webhook signature verifier (Node only) is `@jumbe/client/webhooks`.
export { createJumbeClient, type JumbeClient, type JumbeClientOptions } from './create-jumbe-client';
export type * from './api-types';
export type * from './webhook-events';
export { WEBHOOK_EVENT_NAMES } from './webhook-event-names';
export type { components, operations, paths, webhooks } from './generated/jumbe-api';
