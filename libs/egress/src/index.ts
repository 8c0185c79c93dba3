// Outbound HTTP to customer-given URLs: the public-address policy and a fetch that enforces it.

// Which addresses are public.
export * from './address-kind';
export * from './classify-address';

// Save-time check of webhook and media URLs (400 with the verdict's reason).
export * from './url-verdict';
export * from './host-resolver';
export * from './egress-policy-options';
export * from './url-policy';
export * from './host-policy';

// Connect-time enforcement and the requests built on it.
export * from './create-guarded-lookup';
export * from './connection-pool';
export * from './safe-fetch';
export * from './safe-download';

// What those requests throw.
export * from './egress-error';
export * from './egress-invalid-url-error';
export * from './blocked-address-error';
export * from './egress-timeout-error';
export * from './egress-connection-error';
export * from './egress-too-large-error';
export * from './egress-status-error';
