import type { Exchange } from './openapi-contract';

/**
 * Responses the contract test does not hold to the OpenAPI document, each with the reason. Requests
 * the security suite makes over raw sockets (e2e-security/src/raw-http.ts: malformed request lines,
 * smuggling, slow headers) never pass through `fetch`, so they need no entry here.
 */
export const CONTRACT_EXCLUSIONS: {
  name: string;
  reason: string;
  matches: (exchange: Exchange) => boolean;
}[] = [];

/** The name of the exclusion that covers `exchange`, or undefined. */
export function excludedExchange(exchange: Exchange): string | undefined {
  return CONTRACT_EXCLUSIONS.find((exclusion) => exclusion.matches(exchange))?.name;
}
