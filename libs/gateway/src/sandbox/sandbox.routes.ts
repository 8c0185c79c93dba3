import {
  envelope,
  outboxEntrySchema,
  sandboxCallSchema,
  sandboxDisconnectSchema,
  sandboxInboundSchema,
  sandboxOutboxQuerySchema,
  sandboxScanSchema,
  sandboxStatusResultSchema,
  sandboxStatusSchema,
  sessionSchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

const session = envelope(sessionSchema);

/** `POST /sandbox/call`, as SandboxCallController serves it. */
export const SANDBOX_CALL_ROUTES: RouteDescription[] = [
  {
    method: 'POST',
    path: '/api/v1/sandbox/call',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a contact calls the number (a `call.received` event follows)',
    auth: 'key',
    body: sandboxCallSchema,
    response: envelope(z.object({ callId: z.string() })),
    errors: ['validation_error', 'invalid_session_id', 'invalid_phone', 'session_not_connected'],
  },
];

/** The sandbox's control routes (CONTRACT §9), as SandboxController serves them. */
export const SANDBOX_ROUTES: RouteDescription[] = [
  {
    method: 'POST',
    path: '/api/v1/sandbox/scan',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a phone scans the QR or enters the pairing code',
    auth: 'key',
    body: sandboxScanSchema,
    response: session,
    errors: ['number_in_use', 'session_not_ready'],
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/inbound',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a contact sends a message',
    auth: 'key',
    body: sandboxInboundSchema,
    response: envelope(z.object({ id: z.string() })),
    errors: ['invalid_session_id', 'session_not_connected'],
  },
  {
    method: 'GET',
    path: '/api/v1/sandbox/outbox',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: what the network received',
    auth: 'key',
    query: sandboxOutboxQuerySchema,
    response: envelope(z.array(outboxEntrySchema)),
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/disconnect',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: the network drops the session or the phone unlinks it',
    auth: 'key',
    body: sandboxDisconnectSchema,
    response: session,
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/status',
    tag: 'Sandbox',
    network: 'sandbox',
    summary:
      "Sandbox: the recipient's phone marks a sent message delivered, read or played (→ message.status)",
    auth: 'key',
    body: sandboxStatusSchema,
    response: envelope(sandboxStatusResultSchema),
    errors: ['not_found', 'session_not_connected'],
  },
];
