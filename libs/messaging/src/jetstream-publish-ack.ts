/** What JetStream answers a publish that it stored (or recognised as a duplicate of its `Nats-Msg-Id`). */
export interface JetStreamPublishAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

const decoder = new TextDecoder();

/**
 * Reads JetStream's answer to a publish: `{stream, seq, duplicate?}` once the stream stored the
 * message, or `{error: {code, err_code, description}}` when it did not (wrong sequence expected,
 * storage full, no quorum). Throws when the answer is anything but a stored message, so a caller
 * can only go on (acknowledge its source) after JetStream stored it.
 */
export function readPublishAck(data: Uint8Array): JetStreamPublishAck {
  let answer: unknown;
  try {
    answer = JSON.parse(decoder.decode(data));
  } catch {
    throw new Error('JetStream answered the publish with something other than JSON');
  }
  if (typeof answer !== 'object' || answer === null)
    throw new Error('JetStream answered the publish with no object');
  const { stream, seq, duplicate, error } = answer as Record<string, unknown>;
  if (error !== undefined) {
    const { code, err_code: errCode, description } = (error ?? {}) as Record<string, unknown>;
    throw new Error(
      `JetStream refused the publish: ${String(description ?? 'no description')} (${String(code)}/${String(errCode)})`,
    );
  }
  if (typeof stream !== 'string' || stream === '' || typeof seq !== 'number') {
    throw new Error('JetStream answered the publish without the stream and sequence that stored it');
  }
  return { stream, seq, duplicate: duplicate === true };
}
