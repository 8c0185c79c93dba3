// The framework's floor: NestJS 11 on Fastify (the product's HTTP stack) with one controller that
// parses the same JSON body as POST /messages/text and answers the same shape as
// baseline-server.mjs — no auth, quota, validation, bus, logging or network behind it. Set beside
// bare Fastify, it shows what the design's framework costs per request before any of Jumbe's own
// work: a ceiling for the all-in-one's ratio to bare Fastify.
import { randomBytes } from 'node:crypto';
import { serveSendOnNest } from './support/nest-send-app.mjs';

const app = await serveSendOnNest(
  (body) => ({
    message: 'Message sent',
    data: {
      key: {
        remoteJid: `${body.to}@s.whatsapp.net`,
        fromMe: true,
        id: `3EB0${randomBytes(8).toString('hex').toUpperCase()}`,
      },
    },
  }),
  'nest baseline listening',
);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
