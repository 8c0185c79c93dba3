import type { AddressKind } from './address-kind';
import { describeAddressKind } from './address-kind';
import { EgressError } from './egress-error';

/**
 * The host is, or resolved at connect time to, an address that is not public while private networks
 * are not allowed. Raised before any byte is sent: no TCP connection to that address is attempted.
 */
export class BlockedAddressError extends EgressError {
  override readonly name = 'BlockedAddressError';
  readonly code = 'blocked_address';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: Exclude<AddressKind, 'public'>,
  ) {
    super(
      host === address
        ? `blocked: ${address} is ${describeAddressKind(kind)}`
        : `blocked: ${host} resolves to ${address}, ${describeAddressKind(kind)}`,
    );
  }
}
