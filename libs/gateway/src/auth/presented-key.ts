import type { FastifyRequest } from 'fastify';
import { type ApiKeyAuthenticator, extractApiKey } from './api-key-authenticator';

const hashes = new WeakMap<FastifyRequest, string>();

/**
 * The hash of the API key a request presents, computed once per request: the key is checked
 * before the body (onRequest) and again by the route guard, and SHA-256 twice was a visible share
 * of a send's CPU. Only the hash is kept, never the key, and only as long as the request lives;
 * each check still resolves it against the cache, so a revocation in between is honoured.
 */
export function presentedKeyHash(request: FastifyRequest, authenticator: ApiKeyAuthenticator): string {
  let hash = hashes.get(request);
  if (hash === undefined) {
    hash = authenticator.hashOf(extractApiKey(request.headers));
    hashes.set(request, hash);
  }
  return hash;
}
