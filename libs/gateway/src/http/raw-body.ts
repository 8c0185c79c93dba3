import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * What the transport collected of a request body, before any judgement. Judging (413, 415, 400)
 * happens after authentication, so a request with a bad key gets 401 whatever its body
 * (CONTRACT §2) — Fastify's own parsers would reject bodies before our guards could run. (Only a
 * body beyond the socket limit, 4× the configured one, is refused by Fastify itself, with 413.)
 */
export class RawBody {
  constructor(
    readonly bytes: Buffer,
    readonly contentType: string,
    readonly tooLarge: boolean,
  ) {}
}

/**
 * Replaces Fastify's body parsers with one that only collects bytes (Fastify's own buffered
 * reader, the fast path). The configured limit is judged later, after authentication; Fastify
 * itself refuses only bodies beyond `socketLimitBytes`, which is well above it.
 */
export function installRawBodyCollector(
  fastify: FastifyInstance,
  limitBytes: number,
  socketLimitBytes: number,
): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: socketLimitBytes },
    (request: FastifyRequest, body, done) => {
      const bytes = body as Buffer;
      const tooLarge = bytes.length > limitBytes;
      done(
        null,
        new RawBody(tooLarge ? Buffer.alloc(0) : bytes, request.headers['content-type'] ?? '', tooLarge),
      );
    },
  );
}
