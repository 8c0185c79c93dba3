import { describeAddressKind } from './address-kind';
import { classifyAddress } from './classify-address';
import type { EgressPolicyOptions } from './egress-policy-options';
import { systemResolver } from './host-resolver';

/** Whether a host may be dialled; `reason` is a sentence fit for a 400 response. */
export type HostVerdict = { ok: true } | { ok: false; reason: string };

/**
 * UrlPolicy's address check for a bare host (an IP literal or a name, IPv6 without brackets), for
 * what is not an http(s) URL but is dialled all the same, such as a session's proxy. `what` names
 * the thing in the reason (`proxy`). Like UrlPolicy, a save-time check: the connection itself must
 * dial through createGuardedLookup (names) and checkLiteralHost (IP literals) too.
 */
export async function checkHost(
  host: string,
  what: string,
  options: EgressPolicyOptions,
): Promise<HostVerdict> {
  const mustBePublic = `${what} must be on a public address`;
  const literal = checkLiteralHost(host, options);
  if (literal !== null)
    return literal.ok ? literal : { ok: false, reason: `${what} ${literal.reason}; ${mustBePublic}` };
  let addresses: string[];
  try {
    addresses = await (options.resolver ?? systemResolver)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return { ok: false, reason: `${what} host ${host} could not be resolved` };
  if (options.allowPrivateNetworks) return { ok: true };
  for (const address of addresses) {
    const kind = classifyAddress(address) ?? 'reserved';
    if (kind !== 'public') {
      return {
        ok: false,
        reason: `${what} host ${host} resolves to ${address}, ${describeAddressKind(kind)}; ${mustBePublic}`,
      };
    }
  }
  return { ok: true };
}

/**
 * The check of an IP literal host (Node skips `lookup` for literals, so a guarded lookup never
 * sees them): null when `host` is a name, else whether the policy allows dialling it.
 */
export function checkLiteralHost(host: string, options: EgressPolicyOptions): HostVerdict | null {
  const kind = classifyAddress(host);
  if (kind === null) return null;
  if (kind === 'public' || options.allowPrivateNetworks) return { ok: true };
  return { ok: false, reason: `points to ${host}, ${describeAddressKind(kind)}` };
}
