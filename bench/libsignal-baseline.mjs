// The capacity bench's baseline: what libsignal itself (the `libsignal` package Baileys 7 uses,
// node_modules/libsignal) spends on the Signal work of each kind of message, measured alone in the
// bench's own process, with keys and sessions in memory (the emulator's SignalParty: libsignal's
// SessionBuilder/SessionCipher and Baileys' sender-key classes over plain maps, nothing else).
// Each step replays what a worker's session does in the capacity bench, for `pairs` account/contact
// pairs, in the same order and with messages of the same size (a padded Message proto of ~45
// bytes): the contact's first (pre-key) message decrypted, steady texts decrypted (one receiving
// chain), a first reply (a DH ratchet step), replies in the same chain, a session started from a
// fresh pre-key bundle and its pre-key message, and a group's sender key made and used.
// CPU µs per operation from process.cpuUsage(); run alone: `node bench/libsignal-baseline.mjs [pairs]`.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { root } from './support/services.mjs';

const load = createRequire(import.meta.url);

/** A text as Baileys puts it on the wire before Signal: a Message proto padded with 1–16 bytes. */
function plaintext(phase, seq) {
  const text = Buffer.from(`${phase} ${seq} ${Date.now()}`);
  const proto = Buffer.concat([Buffer.from([0x0a, text.length]), text]);
  const pad = (randomBytes(1)[0] & 0x0f) + 1;
  return Buffer.concat([proto, Buffer.alloc(pad, pad)]);
}

/** CPU µs per item of `work` run over `items` one after another (awaited: libsignal is async). */
async function perItem(items, work) {
  const before = process.cpuUsage();
  for (const [index, item] of items.entries()) await work(item, index);
  const spent = process.cpuUsage(before);
  return Math.round((spent.user + spent.system) / Math.max(1, items.length));
}

/**
 * libsignal's CPU µs per operation, each measured over `pairs` sessions (`steady` texts each for
 * the same-chain steps), and the sum a worker's message needs with the emulator's device fan-out
 * (a contact has its phone only; every send also goes to our own phone).
 */
export async function libsignalCosts({ pairs = 200, steady = 3, groupMembers = 50 } = {}) {
  const { SignalParty } = load(join(root, 'dist/libs/whatsapp-emulator/src/index.js'));
  const accountJid = (i) => `25470${String(i).padStart(7, '0')}@s.whatsapp.net`;
  const contactJid = (i) => `25472${String(i).padStart(7, '0')}@s.whatsapp.net`;
  const parties = Array.from({ length: pairs }, (_, i) => ({
    i,
    account: new SignalParty(),
    contact: new SignalParty(),
    stranger: new SignalParty(),
  }));
  // Ciphertexts are made outside the measured loops: only the side the worker plays is timed.
  const preKeyMessages = [];
  for (const pair of parties) {
    await pair.contact.startSession(accountJid(pair.i), pair.account.bundle());
    preKeyMessages.push(await pair.contact.encrypt(accountJid(pair.i), plaintext('first', pair.i)));
  }
  const inboundFirst = await perItem(parties, (pair, i) =>
    pair.account.decrypt(contactJid(pair.i), preKeyMessages[i].type, preKeyMessages[i].ciphertext),
  );
  const texts = [];
  for (let round = 0; round < steady; round += 1)
    for (const pair of parties)
      texts.push([pair, await pair.contact.encrypt(accountJid(pair.i), plaintext('steady', round))]);
  const inboundSteady = await perItem(texts, ([pair, sent]) =>
    pair.account.decrypt(contactJid(pair.i), sent.type, sent.ciphertext),
  );
  const firstReply = await perItem(parties, (pair) =>
    pair.account.encrypt(contactJid(pair.i), plaintext('reply', 0)),
  );
  const replies = parties.flatMap((pair) => Array.from({ length: steady }, () => pair));
  const outboundKnown = await perItem(replies, (pair, seq) =>
    pair.account.encrypt(contactJid(pair.i), plaintext('known', seq)),
  );
  const bundles = parties.map((pair) => pair.stranger.bundle());
  const outboundNew = await perItem(parties, async (pair, i) => {
    await pair.account.startSession(`25473${String(pair.i).padStart(7, '0')}@s.whatsapp.net`, bundles[i]);
    return pair.account.encrypt(
      `25473${String(pair.i).padStart(7, '0')}@s.whatsapp.net`,
      plaintext('new', i),
    );
  });
  const groupSenderKey = await perItem(parties, (pair, i) =>
    pair.account.encryptForGroup(`1203630000000${i}@g.us`, accountJid(pair.i), plaintext('group', i)),
  );
  const perOperation = {
    inboundFirst,
    inboundSteady,
    firstReply,
    outboundKnown,
    outboundNew,
    groupSenderKey,
  };
  return {
    pairs,
    perOperation,
    // What one message of each kind needs of libsignal on the worker, with the emulator's fan-out.
    perMessage: {
      inboundFirst,
      inboundSteady,
      outboundKnown: 2 * outboundKnown,
      outboundNew: outboundNew + outboundKnown,
      groupFirst: groupMembers * outboundNew + outboundKnown + groupSenderKey,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await libsignalCosts({ pairs: Number(process.argv[2] ?? 200) }), null, 2));
}
