import { ADMIN_ROUTES } from '../admin/admin.routes';
import { CALL_ROUTES } from '../calls/calls.routes';
import { CHAT_ROUTES } from '../chats/chats.routes';
import { CONTACT_ROUTES } from '../contacts/contacts.routes';
import { DASHBOARD_ROUTES } from '../dashboard/dashboard.routes';
import { EVENT_ROUTES } from '../events/events.routes';
import { GROUP_ROUTES } from '../groups/groups.routes';
import type { NetworkName, RouteDescription } from '../http/route-description';
import { KEY_ROUTES } from '../keys/keys.routes';
import { MESSAGE_LOG_ROUTES, SEND_ROUTES } from '../messages/messages.routes';
import { PROFILE_ROUTES } from '../profiles/profiles.routes';
import { SANDBOX_CALL_ROUTES, SANDBOX_ROUTES } from '../sandbox/sandbox.routes';
import { SESSION_ROUTES } from '../sessions/sessions.routes';
import { STATUS_ROUTES } from '../status/status.routes';
import { USAGE_ROUTES } from '../usage/usage.routes';
import { WEBHOOK_ROUTES } from '../webhook/webhook.routes';
import { DOCS_ROUTES } from './docs.routes';

/**
 * Every route of CONTRACT.md, in reading order: each feature describes its routes in its own
 * `*.routes.ts`, beside its controller and from the schemas the controller validates with. The
 * OpenAPI document and the early authentication hook read them from here.
 */
export const GATEWAY_ROUTES: readonly RouteDescription[] = [
  ...STATUS_ROUTES,
  ...DOCS_ROUTES,
  ...USAGE_ROUTES,
  ...SESSION_ROUTES,
  ...SEND_ROUTES,
  ...CHAT_ROUTES,
  ...CONTACT_ROUTES,
  ...PROFILE_ROUTES,
  ...CALL_ROUTES,
  ...SANDBOX_CALL_ROUTES,
  ...GROUP_ROUTES,
  ...MESSAGE_LOG_ROUTES,
  ...WEBHOOK_ROUTES,
  ...SANDBOX_ROUTES,
  ...EVENT_ROUTES,
  ...KEY_ROUTES,
  ...DASHBOARD_ROUTES,
  ...ADMIN_ROUTES,
];

/** The routes a deployment on `network` serves, and so what its OpenAPI document describes. */
export function routesOn(network: NetworkName): RouteDescription[] {
  return GATEWAY_ROUTES.filter((route) => route.network === undefined || route.network === network);
}
