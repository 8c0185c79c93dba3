import { createHash, randomBytes, randomFillSync, randomInt } from 'node:crypto';

// Identifiers the simulated network hands out, shaped like WhatsApp's so that nothing downstream
// (validation, logs, de-duplication) can tell the sandbox from the real network.

/** Ids of messages sent from a linked device, like WhatsApp Web's: `3EB0` + 16 uppercase hex digits. */
export function newOutboundMessageId(): string {
  return `3EB0${randomHex(8)}`;
}

/** Ids of messages a contact sends from a phone (iOS style): `3A` + 18 uppercase hex digits. */
export function newInboundMessageId(): string {
  return `3A${randomHex(9)}`;
}

// Message ids are drawn from a pool filled 4 KiB at a time: one `randomBytes` call per id cost
// ~15 µs on the bench machine (every send of the sandbox makes one), a slice of the pool 0.3 µs.
// Each byte is used once, so the ids are exactly as random as before.
const ENTROPY_POOL_BYTES = 4096;
const entropyPool = Buffer.allocUnsafe(ENTROPY_POOL_BYTES);
let entropyUsed = ENTROPY_POOL_BYTES;

/** `bytes` random bytes as uppercase hex. */
function randomHex(bytes: number): string {
  if (entropyUsed + bytes > ENTROPY_POOL_BYTES) {
    randomFillSync(entropyPool);
    entropyUsed = 0;
  }
  const hex = entropyPool.toString('hex', entropyUsed, entropyUsed + bytes).toUpperCase();
  entropyUsed += bytes;
  return hex;
}

/** The value a client renders as the QR code; `ref` makes every login attempt's QR distinct. */
export function newQrValue(): string {
  return `jumbe-sandbox://link?ref=${randomBytes(16).toString('base64url')}`;
}

// WhatsApp's pairing codes avoid characters that are easy to misread (0/O, 1/I, U/V).
const PAIRING_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTWXYZ';

/** Eight characters shown as `XXXX-XXXX`, as the phone displays them. */
export function newPairingCode(): string {
  const chars = Array.from(
    { length: 8 },
    () => PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)],
  );
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/**
 * The LID a phone number appears under: 15 random-looking digits, but derived from the number,
 * because a real contact's LID is stable — the same contact must map to the same LID every time.
 */
export function lidUserFor(phoneDigits: string): string {
  const hash = BigInt(
    `0x${createHash('sha256').update(`jumbe-sandbox-lid:${phoneDigits}`).digest('hex').slice(0, 24)}`,
  );
  return String(10n ** 14n + (hash % (9n * 10n ** 14n)));
}
