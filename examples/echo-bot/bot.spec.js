// The bot over real HTTP: a signed delivery in, a call to a fake Jumbe API out. The receiver and the
// signer come from the repository's sources, so this runs without a build.
const http = require('node:http');
const { once } = require('node:events');
const { signWebhook } = require('@jumbe/domain');
const receiver = require('../../libs/webhook-receiver/src');
const { createBot } = require('./bot');

const SECRET = 'whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=';

describe('echo bot server', () => {
  let jumbe;
  let bot;
  let calls;
  let botUrl;
  const logger = { log: () => undefined, error: () => undefined };

  beforeEach(async () => {
    calls = [];
    jumbe = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        calls.push({ url: req.url, headers: req.headers, body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Message sent', data: { key: { id: 'X' } } }));
        jumbe.emit('call');
      });
    });
    jumbe.listen(0, '127.0.0.1');
    await once(jumbe, 'listening');
    const handler = createBot({
      secret: SECRET,
      apiKey: 'jmb_test',
      jumbeUrl: `http://127.0.0.1:${jumbe.address().port}/`,
      receiver,
      logger,
    });
    bot = http.createServer(handler).listen(0, '127.0.0.1');
    await once(bot, 'listening');
    botUrl = `http://127.0.0.1:${bot.address().port}/webhook`;
  });

  afterEach(async () => {
    bot.close();
    jumbe.close();
  });

  function deliver(payload, { deliveryId = 'del-1', secret = SECRET } = {}) {
    const body = JSON.stringify({ ...payload, deliveryId });
    return fetch(botUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-event': payload.event,
        'x-service-delivery': deliveryId,
        ...signWebhook({ secret, deliveryId, timestamp: new Date(), body }),
      },
      body,
    });
  }

  const hello = {
    event: 'message.received',
    timestamp: new Date().toISOString(),
    customerId: 'acc_1',
    sessionId: 'sales',
    message: {
      id: 'M1',
      replyTo: '254700000001@s.whatsapp.net',
      fromMe: false,
      text: 'hello',
      interaction: null,
    },
  };

  it('verifies, acknowledges, and echoes through POST /api/v1/messages/text with the API key', async () => {
    const called = once(jumbe, 'call');
    const response = await deliver(hello);
    expect(response.status).toBe(200);
    await called;
    expect(calls).toEqual([
      {
        url: '/api/v1/messages/text',
        headers: expect.objectContaining({ 'x-api-key': 'jmb_test', 'idempotency-key': 'echo-bot-del-1' }),
        body: { sessionId: 'sales', to: '254700000001@s.whatsapp.net', text: 'hello' },
      },
    ]);
  });

  it('handles a repeated delivery once', async () => {
    const called = once(jumbe, 'call');
    expect((await deliver(hello)).status).toBe(200);
    const second = await deliver(hello);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ duplicate: true });
    await called;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toHaveLength(1);
  });

  it('rejects a delivery signed with another secret with 401 and sends nothing', async () => {
    const response = await deliver(hello, { secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64') });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'bad_signature' });
    const unsigned = await fetch(botUrl, { method: 'POST', body: JSON.stringify(hello) });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: 'missing_signature' });
    expect(calls).toHaveLength(0);
  });

  it('acknowledges webhook.test without calling Jumbe', async () => {
    const response = await deliver({
      event: 'webhook.test',
      sessionId: 'default',
      data: { message: 'test' },
    });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toHaveLength(0);
  });
});
