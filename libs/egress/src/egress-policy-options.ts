import type { HostResolver } from './host-resolver';

/** Shared by the save-time check (UrlPolicy) and the connect-time guard (createGuardedLookup). */
export interface EgressPolicyOptions {
  /** Operator switch (configuration): lets URLs reach loopback, private and other non-public addresses. */
  allowPrivateNetworks: boolean;
  /** Defaults to systemResolver; tests pass a fake so no real DNS is asked. */
  resolver?: HostResolver;
}
