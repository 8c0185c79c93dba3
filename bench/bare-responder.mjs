// The far end of "the stack's own limit": a bare NATS responder in its own process that answers
// every request on BENCH_SUBJECT with a reply shaped like a worker's (decode, encode, respond).
// The command is message.send v2 (flat: `message.to`), as the gateway sends it.
import { connect } from 'nats';
import { randomBytes } from 'node:crypto';

const nc = await connect({ servers: process.env.BENCH_NATS.replace(/^nats:\/\//, '') });
const encoder = new TextEncoder();
const decoder = new TextDecoder();
nc.subscribe(process.env.BENCH_SUBJECT, {
  callback: (error, msg) => {
    if (error) return;
    const command = JSON.parse(decoder.decode(msg.data));
    const id = `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
    const result = { key: { remoteJid: `${command.message.to}@s.whatsapp.net`, fromMe: true, id } };
    msg.respond(encoder.encode(JSON.stringify({ ok: true, result })));
  },
});
await nc.flush();
// Same announcement as the servers, so the bench's starter knows it is ready.
process.stdout.write(`${JSON.stringify({ msg: 'responder listening', url: 'http://responder' })}\n`);
process.on('SIGTERM', () => void nc.drain().then(() => process.exit(0)));
