#!/usr/bin/env node
'use strict';
// Echo bot for Jumbe: verifies each webhook delivery, drops duplicates, and answers through Jumbe's
// API. Plain Node 20 (node:http and global fetch), no dependencies besides @jumbe/webhook-receiver.
const http = require('node:http');
const { route } = require('./routes');

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The bot's HTTP handler.
 *
 * @param {object} options
 * @param {string} options.secret the account's webhook signing secret (`whsec_…`)
 * @param {string} options.jumbeUrl Jumbe's origin, e.g. http://127.0.0.1:8080
 * @param {string} options.apiKey an API key of the account (`jmb_…`)
 * @param {typeof import('../../libs/webhook-receiver/src')} options.receiver the receiver helper
 * @param {typeof fetch} [options.fetch]
 * @param {Pick<Console, 'log' | 'error'>} [options.logger]
 */
function createBot({ secret, jumbeUrl, apiKey, receiver, fetch = globalThis.fetch, logger = console }) {
  const { verifyDelivery, DeliveryDeduplicator, WebhookVerificationError } = receiver;
  const deduplicator = new DeliveryDeduplicator();
  const apiBase = `${jumbeUrl.replace(/\/+$/, '')}/api/v1`;

  /** Sends the reply `route` chose; the delivery was already acknowledged. */
  async function reply(deliveryId, request) {
    const response = await fetch(apiBase + request.path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        // The same reply to the same delivery is sent at most once, even if this process restarts
        // and forgets what it de-duplicated (CONTRACT §5, Idempotency-Key).
        'idempotency-key': `echo-bot-${deliveryId}`,
      },
      body: JSON.stringify(request.body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${request.path} answered ${response.status}: ${text}`);
    logger.log(`replied to ${request.body.to} via session ${request.body.sessionId}: ${request.path}`);
  }

  /** @type {http.RequestListener} */
  return function handle(req, res) {
    if (req.method !== 'POST') {
      send(res, req.method === 'GET' ? 200 : 405, { status: 'ok' });
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        send(res, 413, { error: 'payload_too_large' });
        return;
      }
      let delivery;
      try {
        // The raw bytes as received: never JSON.parse + JSON.stringify before verifying.
        delivery = verifyDelivery({ body: Buffer.concat(chunks), headers: req.headers, secret });
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        logger.error(`rejected a delivery: ${error.reason}: ${error.message}`);
        send(res, error.reason === 'malformed' ? 400 : 401, { error: error.reason });
        return;
      }
      if (deduplicator.seen(delivery.deliveryId)) {
        logger.log(`duplicate delivery ${delivery.deliveryId} ignored`);
        send(res, 200, { duplicate: true });
        return;
      }
      // Acknowledge first: Jumbe waits at most 10 s, and the reply does not need to hold it up.
      send(res, 200, { received: true });
      logger.log(
        `delivery ${delivery.deliveryId}: ${delivery.event} from session ${delivery.payload.sessionId}`,
      );
      const request = route(delivery.payload);
      if (request) {
        reply(delivery.deliveryId, request).catch((error) => logger.error(`reply failed: ${error.message}`));
      }
    });
  };
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see examples/echo-bot/README.md)`);
    process.exit(1);
  }
  return value;
}

if (require.main === module) {
  const { loadReceiver } = require('./load-receiver');
  const handler = createBot({
    secret: required('JUMBE_WEBHOOK_SECRET'),
    apiKey: required('JUMBE_API_KEY'),
    jumbeUrl: process.env.JUMBE_URL || 'http://127.0.0.1:8080',
    receiver: loadReceiver(),
  });
  const port = Number(process.env.PORT || 3000);
  const host = process.env.HOST || '127.0.0.1';
  http.createServer(handler).listen(port, host, () => {
    console.log(`echo bot listening on http://${host}:${port}/webhook`);
  });
}

module.exports = { createBot };
