import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { serviceSignature, signWebhook, standardWebhookSignature, WEBHOOK_HEADERS } from './sign-webhook';
import { decodeWebhookSecret, generateWebhookSecret, isWebhookSecret } from './webhook-secret';

// Fixed vectors, computed independently with openssl when this test was written (bash, UTF-8 locale):
//
//   secret='whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg='    # from `openssl rand -base64 32`
//   id='fb60ab60-d455-419c-bb60-974b20c69f37'
//   ts='2026-01-02T03:04:05.678Z'; unix=$(date -u -d "$ts" +%s)     # 1767323045
//   body='{"event":"message.received",...}'                          # BODY_1 below, verbatim
//   printf '%s' "$ts.$body" | openssl dgst -sha256 -hmac "$secret"
//     → d4ccc5f0196d77d3f191206b8a59974197017e41d744419f10035504fbf522f6
//   keyhex=$(printf '%s' "${secret#whsec_}" | base64 -d | xxd -p -c 256)
//     → 24eb26022af8fce55d5c8cabc058faedfc210a711abed1163ccbe78fbba00e68
//   printf '%s' "$id.$unix.$body" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$keyhex -binary | base64
//     → z2UQGnIluzpEp/HFtckp0nliDNkI4NoD84kkgjGGRsU=
//
// Vector 2: same secret, id='0b4a2f0e-7c1d-4e8a-9b3f-5d6c7e8f9a01', ts='2026-03-15T23:59:59.999Z'
// (unix 1773619199, the .999 is truncated, not rounded), body=BODY_2 (whitespace kept), same commands:
//     → 16ae2ff4a716b35485785f33b877d90c5d3823719575ec8cc132260aa52338d6
//     → sqggCH5E3mMqScj5Sz7XdMrREUfYrwNjM7jV/L0CQ8w=
const SECRET = 'whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=';
const KEY_HEX = '24eb26022af8fce55d5c8cabc058faedfc210a711abed1163ccbe78fbba00e68';
const BODY_1 =
  '{"event":"message.received","deliveryId":"fb60ab60-d455-419c-bb60-974b20c69f37","sessionId":"sales","message":{"text":"Habari 👋 café"}}';
const BODY_2 = '{ "event": "webhook.test", "data": { "message": "This is a test" } }';

describe('signWebhook', () => {
  it('matches the openssl vector 1 (non-ASCII body)', () => {
    expect(
      signWebhook({
        secret: SECRET,
        deliveryId: 'fb60ab60-d455-419c-bb60-974b20c69f37',
        timestamp: new Date('2026-01-02T03:04:05.678Z'),
        body: BODY_1,
      }),
    ).toEqual({
      'X-Service-Timestamp': '2026-01-02T03:04:05.678Z',
      'X-Service-Signature': 'sha256=d4ccc5f0196d77d3f191206b8a59974197017e41d744419f10035504fbf522f6',
      'webhook-id': 'fb60ab60-d455-419c-bb60-974b20c69f37',
      'webhook-timestamp': '1767323045',
      'webhook-signature': 'v1,z2UQGnIluzpEp/HFtckp0nliDNkI4NoD84kkgjGGRsU=',
    });
  });

  it('matches the openssl vector 2 (whitespace kept, milliseconds truncated for Unix seconds)', () => {
    expect(
      signWebhook({
        secret: SECRET,
        deliveryId: '0b4a2f0e-7c1d-4e8a-9b3f-5d6c7e8f9a01',
        timestamp: new Date('2026-03-15T23:59:59.999Z'),
        body: BODY_2,
      }),
    ).toEqual({
      'X-Service-Timestamp': '2026-03-15T23:59:59.999Z',
      'X-Service-Signature': 'sha256=16ae2ff4a716b35485785f33b877d90c5d3823719575ec8cc132260aa52338d6',
      'webhook-id': '0b4a2f0e-7c1d-4e8a-9b3f-5d6c7e8f9a01',
      'webhook-timestamp': '1773619199',
      'webhook-signature': 'v1,sqggCH5E3mMqScj5Sz7XdMrREUfYrwNjM7jV/L0CQ8w=',
    });
  });

  it('returns exactly the five signature headers, and nothing the dispatcher adds', () => {
    const headers = signWebhook({ secret: SECRET, deliveryId: 'd-1', timestamp: new Date(0), body: '{}' });
    expect(Object.keys(headers).sort()).toEqual(
      [
        'X-Service-Signature',
        'X-Service-Timestamp',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ].sort(),
    );
    expect(headers['X-Service-Timestamp']).toBe('1970-01-01T00:00:00.000Z');
    expect(headers['webhook-timestamp']).toBe('0');
  });

  it('keys X-Service-Signature with the whole secret string, and webhook-signature with the decoded key', () => {
    const ts = '2026-01-02T03:04:05.678Z';
    const whole = createHmac('sha256', SECRET).update(`${ts}.${BODY_2}`).digest('hex');
    expect(serviceSignature(SECRET, ts, BODY_2)).toBe(`sha256=${whole}`);
    const decoded = createHmac('sha256', Buffer.from(KEY_HEX, 'hex'))
      .update(`id.1767323045.${BODY_2}`)
      .digest('base64');
    expect(standardWebhookSignature(SECRET, 'id', 1767323045, BODY_2)).toBe(`v1,${decoded}`);
  });

  it('changes when any signed part changes', () => {
    const base = {
      secret: SECRET,
      deliveryId: 'd-1',
      timestamp: new Date('2026-01-01T00:00:00.000Z'),
      body: '{}',
    };
    const signed = signWebhook(base);
    for (const changed of [
      { ...base, body: '{ }' },
      { ...base, timestamp: new Date('2026-01-01T00:00:00.001Z') },
      { ...base, secret: generateWebhookSecret() },
    ]) {
      expect(signWebhook(changed)['X-Service-Signature']).not.toBe(signed['X-Service-Signature']);
    }
    expect(signWebhook({ ...base, deliveryId: 'd-2' })['webhook-signature']).not.toBe(
      signed['webhook-signature'],
    );
  });

  it('refuses a secret that is not whsec_ + base64, an invalid date and an empty delivery id', () => {
    const base = { secret: SECRET, deliveryId: 'd-1', timestamp: new Date(), body: '{}' };
    expect(() => signWebhook({ ...base, secret: 'JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=' })).toThrow(
      /whsec_/,
    );
    expect(() => signWebhook({ ...base, secret: 'whsec_' })).toThrow(/base64/);
    expect(() => signWebhook({ ...base, secret: 'whsec_not base64!' })).toThrow(/base64/);
    expect(() => signWebhook({ ...base, timestamp: new Date('nope') })).toThrow(/timestamp/);
    expect(() => signWebhook({ ...base, deliveryId: '' })).toThrow(/delivery id/);
  });

  it('exposes the header names', () => {
    expect(WEBHOOK_HEADERS).toMatchObject({
      event: 'X-Service-Event',
      delivery: 'X-Service-Delivery',
      timestamp: 'X-Service-Timestamp',
      signature: 'X-Service-Signature',
    });
  });
});

describe('Standard Webhooks compatibility (the standardwebhooks npm library)', () => {
  const body = JSON.stringify({
    event: 'webhook.test',
    deliveryId: 'msg_1',
    data: { message: 'Ünïcode 👋' },
  });

  it('Webhook(secret).verify accepts our webhook-* headers and returns the parsed body', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ secret, deliveryId: 'msg_1', timestamp: new Date(), body });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(Buffer.from(body, 'utf8'), headers)).toEqual(JSON.parse(body));
  });

  it('produces the same signature as the library signs', () => {
    const now = new Date();
    const headers = signWebhook({ secret: SECRET, deliveryId: 'msg_2', timestamp: now, body });
    expect(headers['webhook-signature']).toBe(new Webhook(SECRET).sign('msg_2', now, body));
  });

  it('the library rejects our headers for another secret or another body', () => {
    const headers = signWebhook({ secret: SECRET, deliveryId: 'msg_1', timestamp: new Date(), body });
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(SECRET).verify(`${body} `, headers)).toThrow(WebhookVerificationError);
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ + standard base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(secret)).toHaveLength(32);
    expect(isWebhookSecret(secret)).toBe(true);
  });

  it('is different every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, () => generateWebhookSecret()));
    expect(secrets.size).toBe(100);
  });

  it('decodes the key behind a secret', () => {
    expect(decodeWebhookSecret(SECRET).toString('hex')).toBe(KEY_HEX);
    expect(isWebhookSecret('whsec_')).toBe(false);
    expect(isWebhookSecret('secret')).toBe(false);
  });
});
