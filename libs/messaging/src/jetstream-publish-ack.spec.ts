import { readPublishAck } from './jetstream-publish-ack';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readPublishAck', () => {
  it('reads a stored message and a recognised duplicate', () => {
    expect(readPublishAck(bytes('{"stream":"EVENTS","seq":42}'))).toEqual({
      stream: 'EVENTS',
      seq: 42,
      duplicate: false,
    });
    expect(readPublishAck(bytes('{"stream":"EVENTS","domain":"x","seq":42,"duplicate":true}'))).toEqual({
      stream: 'EVENTS',
      seq: 42,
      duplicate: true,
    });
  });

  it("throws JetStream's refusal with its description and codes", () => {
    const refusal =
      '{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"},"stream":"E","seq":0}';
    expect(() => readPublishAck(bytes(refusal))).toThrow(/maximum messages exceeded \(503\/10077\)/);
  });

  it('throws for anything that does not say which stream stored the message at which sequence', () => {
    for (const answer of [
      '',
      'not json',
      'null',
      '42',
      '{}',
      '{"stream":"","seq":1}',
      '{"stream":"E"}',
      '{"seq":1}',
    ]) {
      expect(() => readPublishAck(bytes(answer))).toThrow();
    }
  });
});
