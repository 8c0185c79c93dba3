// The baseline: a bare Fastify server that parses the same JSON body as POST /messages/text and
// answers the same shape, with no auth, quota, validation, bus or network behind it.
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';

const app = Fastify({ logger: false });
app.post('/api/v1/messages/text', async (request) => {
  const { to } = request.body;
  return {
    message: 'Message sent',
    data: {
      key: {
        remoteJid: `${to}@s.whatsapp.net`,
        fromMe: true,
        id: `3EB0${randomBytes(8).toString('hex').toUpperCase()}`,
      },
    },
  };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ msg: 'baseline listening', url: address })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
