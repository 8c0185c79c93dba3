import { createHmac } from 'node:crypto';
import { generateWebhookSecret, signWebhook } from '@jumbe/domain';
import { WebhookVerificationError, type WebhookVerificationReason } from './errors';
import type { MessageReceivedEvent } from './events';
import { verifyDelivery, type DeliveryHeaders, type VerifyDeliveryOptions } from './verify-delivery';

const SECRET = 'whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=';
const SIGNED_AT = new Date('2026-01-02T03:04:05.678Z');
const NOW = SIGNED_AT.getTime();

/** A delivery as the dispatcher sends it: our signer's headers plus event, delivery and content type. */
function delivery(
  payload: Record<string, unknown> | string,
  options: { secret?: string; deliveryId?: string; at?: Date; event?: string } = {},
) {
  const { secret = SECRET, deliveryId = 'd4f1c9a2-5b7e-4c3d-8e9f-0a1b2c3d4e5f', at = SIGNED_AT } = options;
  const body =
    typeof payload === 'string'
      ? payload
      : JSON.stringify({ deliveryId, event: 'message.received', ...payload });
  const event =
    options.event ?? (typeof payload === 'string' ? 'message.received' : String(JSON.parse(body).event));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Service-Event': event,
    'X-Service-Delivery': deliveryId,
    ...signWebhook({ secret, deliveryId, timestamp: at, body }),
  };
  return { body, headers };
}

/** Lower-cased header names, as Node's IncomingMessage presents them. */
function nodeStyle(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function rejection(options: VerifyDeliveryOptions): WebhookVerificationError {
  try {
    verifyDelivery(options);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('expected verifyDelivery to reject the delivery');
}

function expectReason(options: VerifyDeliveryOptions, reason: WebhookVerificationReason) {
  const error = rejection(options);
  expect(error.reason).toBe(reason);
  return error;
}

const message = {
  sessionId: 'sales',
  customerId: 'acc_1',
  timestamp: '2026-01-02T03:04:05.001Z',
  message: { id: 'ABC', replyTo: '254700000001@s.whatsapp.net', text: 'Habari 👋', type: 'conversation' },
};

describe('verifyDelivery: accepted deliveries', () => {
  it('accepts a delivery signed by our signer and returns id, event, time and parsed payload', () => {
    const { body, headers } = delivery(message);
    const verified = verifyDelivery<MessageReceivedEvent>({ body, headers, secret: SECRET, now: NOW });
    expect(verified).toEqual({
      deliveryId: 'd4f1c9a2-5b7e-4c3d-8e9f-0a1b2c3d4e5f',
      event: 'message.received',
      timestamp: SIGNED_AT,
      payload: JSON.parse(body),
    });
    expect(verified.payload.message.replyTo).toBe('254700000001@s.whatsapp.net');
  });

  it('accepts the fixed openssl vector of libs/domain (X-Service-Signature, computed independently)', () => {
    const body =
      '{"event":"message.received","deliveryId":"fb60ab60-d455-419c-bb60-974b20c69f37","sessionId":"sales","message":{"text":"Habari 👋 café"}}';
    const headers = {
      'x-service-timestamp': '2026-01-02T03:04:05.678Z',
      'x-service-signature': 'sha256=d4ccc5f0196d77d3f191206b8a59974197017e41d744419f10035504fbf522f6',
    };
    expect(verifyDelivery({ body, headers, secret: SECRET, now: NOW })).toMatchObject({
      deliveryId: 'fb60ab60-d455-419c-bb60-974b20c69f37',
      event: 'message.received',
    });
  });

  it('works with a Buffer body, a string body and a Uint8Array view into a larger buffer', () => {
    const { body, headers } = delivery(message);
    const bytes = Buffer.from(body, 'utf8');
    const padded = Buffer.concat([Buffer.from('xxxx'), bytes, Buffer.from('yyyy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 4, bytes.length);
    for (const raw of [body, bytes, view]) {
      expect(verifyDelivery({ body: raw, headers, secret: SECRET, now: NOW }).payload).toEqual(
        JSON.parse(body),
      );
    }
  });

  it('looks headers up case-insensitively: as sent, as Node lower-cases them, in a Fetch Headers', () => {
    const { body, headers } = delivery(message);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    for (const h of [headers, nodeStyle(headers), upper, new Headers(headers)] as DeliveryHeaders[]) {
      expect(verifyDelivery({ body, headers: h, secret: SECRET, now: NOW }).event).toBe('message.received');
    }
    const arrays = Object.fromEntries(Object.entries(nodeStyle(headers)).map(([k, v]) => [k, [v]]));
    expect(verifyDelivery({ body, headers: arrays, secret: SECRET, now: NOW }).event).toBe(
      'message.received',
    );
  });

  it('accepts either secret while rotating', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    for (const signer of [oldSecret, newSecret]) {
      const { body, headers } = delivery(message, { secret: signer });
      expect(() => verifyDelivery({ body, headers, secret: [newSecret, oldSecret], now: NOW })).not.toThrow();
    }
    const { body, headers } = delivery(message, { secret: generateWebhookSecret() });
    expectReason({ body, headers, secret: [newSecret, oldSecret], now: NOW }, 'bad_signature');
  });

  it('accepts a webhook.test event and takes the delivery id from the header when the body has none', () => {
    const body = JSON.stringify({ event: 'webhook.test', sessionId: 'default', data: { message: 'test' } });
    const headers = {
      'x-service-event': 'webhook.test',
      'x-service-delivery': 'del-1',
      ...signWebhook({ secret: SECRET, deliveryId: 'del-1', timestamp: SIGNED_AT, body }),
    };
    expect(verifyDelivery({ body, headers, secret: SECRET, now: NOW })).toMatchObject({
      deliveryId: 'del-1',
      event: 'webhook.test',
    });
  });

  it('uses the real clock by default', () => {
    const { body, headers } = delivery(message, { at: new Date() });
    expect(() => verifyDelivery({ body, headers, secret: SECRET })).not.toThrow();
  });
});

describe('verifyDelivery: rejections', () => {
  const { body, headers } = delivery(message);
  const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));

  it('missing_secret: undefined, empty, or an empty list', () => {
    for (const secret of [undefined, null, '', [], ['']]) {
      expectReason({ body, headers, secret, now: NOW }, 'missing_secret');
    }
  });

  it('missing_signature: no X-Service-Signature, or an empty one', () => {
    expectReason(
      { body, headers: without('X-Service-Signature'), secret: SECRET, now: NOW },
      'missing_signature',
    );
    expectReason(
      { body, headers: { ...headers, 'X-Service-Signature': ' ' }, secret: SECRET, now: NOW },
      'missing_signature',
    );
  });

  it('missing_timestamp: no X-Service-Timestamp', () => {
    expectReason(
      { body, headers: without('X-Service-Timestamp'), secret: SECRET, now: NOW },
      'missing_timestamp',
    );
  });

  it('bad_signature: another secret, a changed body, a changed timestamp, a changed digit', () => {
    expectReason({ body, headers, secret: generateWebhookSecret(), now: NOW }, 'bad_signature');
    expectReason(
      { body: body.replace('Habari', 'Jambo!'), headers, secret: SECRET, now: NOW },
      'bad_signature',
    );
    expectReason(
      {
        body,
        headers: { ...headers, 'X-Service-Timestamp': '2026-01-02T03:04:06.678Z' },
        secret: SECRET,
        now: NOW,
      },
      'bad_signature',
    );
    const signature = headers['X-Service-Signature'];
    const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
    expectReason(
      { body, headers: { ...headers, 'X-Service-Signature': flipped }, secret: SECRET, now: NOW },
      'bad_signature',
    );
  });

  it('bad_signature: only the secret with its whsec_ prefix, as UTF-8, is the key (not the decoded bytes)', () => {
    const ts = headers['X-Service-Timestamp'];
    const decodedKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const wrong = createHmac('sha256', decodedKey).update(`${ts}.${body}`).digest('hex');
    expectReason(
      { body, headers: { ...headers, 'X-Service-Signature': `sha256=${wrong}` }, secret: SECRET, now: NOW },
      'bad_signature',
    );
  });

  it('a re-serialised body fails, even when it is the same JSON value', () => {
    // The dispatcher's raw body escapes é as \u00e9; a parser plus JSON.stringify writes it back as é.
    const raw = '{"deliveryId":"d-1","event":"message.received","message":{"text":"caf\\u00e9"}}';
    const signed = delivery(raw, { deliveryId: 'd-1' });
    expect(verifyDelivery({ ...signed, secret: SECRET, now: NOW }).payload).toEqual(JSON.parse(raw));
    for (const reserialised of [JSON.stringify(JSON.parse(raw)), JSON.stringify(JSON.parse(raw), null, 2)]) {
      expect(JSON.parse(reserialised)).toEqual(JSON.parse(raw));
      expectReason(
        { body: reserialised, headers: signed.headers, secret: SECRET, now: NOW },
        'bad_signature',
      );
    }
  });

  it('malformed: a parsed object instead of the raw body, with a hint', () => {
    const error = expectReason(
      { body: JSON.parse(body) as unknown as string, headers, secret: SECRET, now: NOW },
      'malformed',
    );
    expect(error.message).toMatch(/raw request body/);
  });

  it('malformed: a signature header that is not sha256=<64 hex>', () => {
    const hex = headers['X-Service-Signature'].slice('sha256='.length);
    for (const value of [
      hex,
      `sha1=${hex}`,
      `sha256=${hex.slice(2)}`,
      `sha256=${hex}00`,
      `sha256=${'z'.repeat(64)}`,
    ]) {
      expectReason(
        { body, headers: { ...headers, 'X-Service-Signature': value }, secret: SECRET, now: NOW },
        'malformed',
      );
    }
  });

  it('malformed: a correctly signed timestamp that is not ISO 8601', () => {
    for (const ts of ['1767323045', 'yesterday', '2026-13-45T99:99:99.000Z']) {
      const headersFor = { ...headers, 'X-Service-Timestamp': ts, 'X-Service-Signature': sign(ts, body) };
      expectReason({ body, headers: headersFor, secret: SECRET, now: NOW }, 'malformed');
    }
  });

  it('malformed: a correctly signed body that is not a JSON object', () => {
    const ts = headers['X-Service-Timestamp'];
    for (const raw of ['not json', '[1,2]', 'null', '"text"']) {
      const h = { ...headers, 'X-Service-Signature': sign(ts, raw) };
      expectReason({ body: raw, headers: h, secret: SECRET, now: NOW }, 'malformed');
    }
  });

  it('malformed: headers that contradict the signed body, or no delivery id at all', () => {
    expectReason(
      { body, headers: { ...headers, 'X-Service-Delivery': 'another-id' }, secret: SECRET, now: NOW },
      'malformed',
    );
    expectReason(
      { body, headers: { ...headers, 'X-Service-Event': 'webhook.test' }, secret: SECRET, now: NOW },
      'malformed',
    );
    const raw = JSON.stringify({ event: 'message.received' });
    const h = signWebhook({ secret: SECRET, deliveryId: 'x', timestamp: SIGNED_AT, body: raw });
    expectReason({ body: raw, headers: h, secret: SECRET, now: NOW }, 'malformed');
  });

  it('malformed: a signature header that arrives twice', () => {
    const h = { ...nodeStyle(headers), 'x-service-signature': [headers['X-Service-Signature'], 'sha256=00'] };
    expectReason({ body, headers: h, secret: SECRET, now: NOW }, 'malformed');
  });

  it('refuses a negative or NaN tolerance as a programming error', () => {
    expect(() => verifyDelivery({ body, headers, secret: SECRET, toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => verifyDelivery({ body, headers, secret: SECRET, toleranceSeconds: NaN })).toThrow(TypeError);
  });

  it('throws a WebhookVerificationError that is an Error with a name, a reason and a message', () => {
    const error = rejection({ body, headers, secret: generateWebhookSecret(), now: NOW });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.message).toMatch(/signature/);
  });
});

describe('verifyDelivery: timestamp tolerance', () => {
  const { body, headers } = delivery(message);
  const at = (offsetMs: number, toleranceSeconds?: number) => () =>
    verifyDelivery({ body, headers, secret: SECRET, now: NOW + offsetMs, toleranceSeconds });

  it('defaults to 5 minutes either way, boundary included', () => {
    expect(at(300_000)).not.toThrow();
    expect(at(-300_000)).not.toThrow();
    expect(reasonOf(at(300_001))).toBe('timestamp_too_old');
    expect(reasonOf(at(-300_001))).toBe('timestamp_in_future');
  });

  it('is configurable', () => {
    expect(at(10_000, 10)).not.toThrow();
    expect(reasonOf(at(10_001, 10))).toBe('timestamp_too_old');
    expect(reasonOf(at(-10_001, 10))).toBe('timestamp_in_future');
    expect(at(3_600_000, 3600)).not.toThrow();
    expect(at(10 * 365 * 86_400_000, Infinity)).not.toThrow();
  });

  it('takes now as a Date too', () => {
    expect(() => verifyDelivery({ body, headers, secret: SECRET, now: new Date(NOW + 301_000) })).toThrow(
      WebhookVerificationError,
    );
  });

  it('checks the signature before the age, so a forged old timestamp is bad_signature', () => {
    const forged = { ...headers, 'X-Service-Timestamp': '2020-01-01T00:00:00.000Z' };
    expectReason({ body, headers: forged, secret: SECRET, now: NOW }, 'bad_signature');
  });
});

function sign(timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
}

function reasonOf(run: () => unknown): WebhookVerificationReason | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}
