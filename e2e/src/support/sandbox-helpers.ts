import { type ApiClient, lastReadWithin } from '@jumbe/testing';
import { randomInt } from 'node:crypto';

/** A fresh 12-digit number, so tests never collide on the network's one-session-per-number rule. */
export const randomPhone = () => `2547${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

/** Polls (every 100 ms) until `check` passes or the deadline is over; returns the last value. */
export const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 20_000) =>
  lastReadWithin(read, check, timeoutMs, 100);

/** Starts a session and links a sandbox phone to it, asserting each step; returns the number. */
export async function linkSession(
  api: ApiClient,
  key: string,
  sessionId = 'default',
  phone = randomPhone(),
): Promise<string> {
  const started = await api.post('/api/v1/session/start', { key, body: { sessionId } });
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
  await eventually(
    () => api.get(`/api/v1/session/qr?sessionId=${sessionId}`, { key }),
    (response) => response.body?.data?.state === 'qr_ready',
  );
  const scanned = await api.post('/api/v1/sandbox/scan', { key, body: { sessionId, phoneNumber: phone } });
  if (scanned.status !== 200 || scanned.body.data.state !== 'connected')
    throw new Error(`scan: ${scanned.status} ${scanned.text}`);
  return phone;
}
