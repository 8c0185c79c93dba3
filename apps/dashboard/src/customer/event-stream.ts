import { type Credential, errorText, type EventEnvelope, sessionRefused } from '../api';

/** One Server-Sent Event of `GET /api/v1/events`: `id: <seq>`, `event: <type>`, `data: <envelope>`. */
export interface StreamEvent {
  id: string | null;
  type: string;
  envelope: EventEnvelope;
}

/** Why the stream is not open (shown as it is). */
export class StreamUnavailable extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * Splits a growing text buffer into complete SSE frames (blank-line separated) and parses them;
 * returns what is left over for the next chunk. Comments (`: keep-alive`) and frames without data
 * are skipped, as EventSource does.
 */
export function parseFrames(buffer: string, onEvent: (event: StreamEvent) => void): string {
  const frames = buffer.split(/\r?\n\r?\n/);
  const rest = frames.pop() ?? '';
  for (const frame of frames) {
    let id: string | null = null;
    let type = 'message';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) continue;
    let envelope: EventEnvelope;
    try {
      // The server's own frames: the envelope its webhook schema documents (stream.* frames aside).
      envelope = JSON.parse(data.join('\n')) as EventEnvelope;
    } catch {
      continue; // not JSON: nothing to show
    }
    onEvent({ id, type, envelope });
  }
  return rest;
}

/**
 * Reads the account's live events through `fetch` (EventSource cannot send the `Authorization`
 * header), resuming after `lastEventId` when given. Resolves when the server ends the stream;
 * rejects with StreamUnavailable when the gateway refuses or does not have it.
 */
export async function readEventStream(options: {
  credential: Extract<Credential, { kind: 'dashboard' }>;
  lastEventId: string | null;
  query: string;
  signal: AbortSignal;
  onOpen: () => void;
  onEvent: (event: StreamEvent) => void;
}): Promise<void> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.credential.token}`,
    accept: 'text/event-stream',
  };
  if (options.lastEventId !== null) headers['last-event-id'] = options.lastEventId;
  let response: Response;
  try {
    response = await fetch(`/api/v1/events${options.query}`, {
      headers,
      cache: 'no-store',
      credentials: 'omit',
      signal: options.signal,
    });
  } catch {
    if (options.signal.aborted) return;
    throw new StreamUnavailable('The gateway could not be reached.', 0);
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !type.startsWith('text/event-stream') || !response.body) {
    sessionRefused(response.status);
    throw new StreamUnavailable(await refusal(response), response.status);
  }
  options.onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = parseFrames(buffer + value, options.onEvent);
    }
  } catch (error) {
    if (options.signal.aborted) return;
    throw error;
  }
}

async function refusal(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as {
      message?: string;
      error?: { code?: string; details?: Array<{ path: string; problem: string }> };
    };
    const message = errorText(
      body.message ?? `The gateway answered ${response.status}.`,
      body.error?.details,
    );
    return body.error?.code ? `${message} (${body.error.code})` : message;
  } catch {
    return response.ok
      ? `The gateway answered ${response.headers.get('content-type') ?? 'something'}, not an event stream.`
      : `The gateway answered ${response.status}.`;
  }
}
