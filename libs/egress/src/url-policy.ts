import { describeAddressKind } from './address-kind';
import { checkUrlShape } from './check-url-shape';
import { classifyAddress } from './classify-address';
import type { EgressPolicyOptions } from './egress-policy-options';
import { systemResolver, type HostResolver } from './host-resolver';
import { urlHost } from './url-host';
import type { UrlVerdict } from './url-verdict';

const mustBePublic = 'webhook and media URLs must be public';

/**
 * The check a webhook or media URL passes before it is accepted (CONTRACT §5, §6): answered with a
 * 400 and the verdict's reason when it fails. It resolves the host now; since DNS can change
 * between this check and the request (rebinding), the request itself must also go through
 * safeFetch / safeDownload, whose connect-time guard is the check that actually protects.
 */
export class UrlPolicy {
  private readonly allowPrivateNetworks: boolean;
  private readonly resolver: HostResolver;

  constructor(options: EgressPolicyOptions) {
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.resolver = options.resolver ?? systemResolver;
  }

  async check(raw: string): Promise<UrlVerdict> {
    const shape = checkUrlShape(raw);
    if (!shape.ok) return shape;
    const { url } = shape;
    const host = urlHost(url);

    // The URL parser has already turned `0x7f.1` and friends into dotted quads: no DNS for literals.
    const literalKind = classifyAddress(host);
    if (literalKind !== null) {
      if (literalKind === 'public' || this.allowPrivateNetworks) return { ok: true, url };
      return refuse(`url points to ${host}, ${describeAddressKind(literalKind)}; ${mustBePublic}`);
    }

    let addresses: string[];
    try {
      addresses = await this.resolver(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return refuse(`url host ${host} could not be resolved`);
    if (this.allowPrivateNetworks) return { ok: true, url };

    // Every address, not just the first: the client may connect to any of them.
    for (const address of addresses) {
      const kind = classifyAddress(address) ?? 'reserved';
      if (kind !== 'public') {
        return refuse(`url resolves to ${address}, ${describeAddressKind(kind)}; ${mustBePublic}`);
      }
    }
    return { ok: true, url };
  }
}

function refuse(reason: string): UrlVerdict {
  return { ok: false, reason };
}
