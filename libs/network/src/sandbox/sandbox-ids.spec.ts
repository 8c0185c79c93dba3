import {
  lidUserFor,
  newInboundMessageId,
  newOutboundMessageId,
  newPairingCode,
  newQrValue,
} from './sandbox-ids';

describe('sandbox identifiers', () => {
  it('look like WhatsApp message ids', () => {
    expect(newOutboundMessageId()).toMatch(/^3EB0[0-9A-F]{16}$/);
    expect(newInboundMessageId()).toMatch(/^3A[0-9A-F]{18}$/);
    expect(newOutboundMessageId()).not.toBe(newOutboundMessageId());
  });

  it('never repeat a message id, also across refills of the entropy pool', () => {
    // 8 and 9 bytes an id from a 4 KiB pool: 3,000 of each draw the pool empty several times.
    const ids = Array.from({ length: 3_000 }, () => [newOutboundMessageId(), newInboundMessageId()]).flat();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^(3EB0[0-9A-F]{16}|3A[0-9A-F]{18})$/);
  });

  it('make pairing codes of unambiguous characters', () => {
    for (let i = 0; i < 200; i += 1)
      expect(newPairingCode()).toMatch(/^[2-9A-HJ-NP-TW-Z]{4}-[2-9A-HJ-NP-TW-Z]{4}$/);
  });

  it('make distinct QR values', () => {
    expect(newQrValue()).toMatch(/^jumbe-sandbox:\/\/link\?ref=[A-Za-z0-9_-]{22}$/);
    expect(newQrValue()).not.toBe(newQrValue());
  });

  it('give every number one stable 15-digit LID', () => {
    expect(lidUserFor('254711000111')).toMatch(/^[1-9][0-9]{14}$/);
    expect(lidUserFor('254711000111')).toBe(lidUserFor('254711000111'));
    expect(lidUserFor('254711000112')).not.toBe(lidUserFor('254711000111'));
  });
});
