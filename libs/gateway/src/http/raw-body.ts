import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * What the transport collected of a request body, before any judgement. Judging (413, 415, 400)
 * happens after authentication, so a request with a bad key gets 401 whatever its body
 * (CONTRACT §2) — Fastify's own parsers would reject bodies before our guards could run.
 */
export class RawBody {
  constructor(
    readonly bytes: Buffer,
    readonly contentType: string,
    readonly tooLarge: boolean,
  ) {}
}

/**
 * Replaces Fastify's body parsers with one that only collects bytes, up to `limitBytes`.
 * Past the limit it keeps draining the stream (so the client can read our 413) without storing it.
 */
export function installRawBodyCollector(fastify: FastifyInstance, limitBytes: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    payload.on('end', () => {
      done(
        null,
        new RawBody(
          tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks),
          request.headers['content-type'] ?? '',
          tooLarge,
        ),
      );
    });
    payload.on('error', (error) => done(error, undefined));
  });
}
