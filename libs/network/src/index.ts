// The messaging-network port (domain terms only) and its drivers.
export * from './session-ref';
export * from './disconnect-reason';
export * from './link-event';
export * from './session-events';
export * from './poll-vote';
export * from './message-status-report';
export * from './outbound-message';
export * from './sent-key';
export * from './network-session';
export * from './profile';
export * from './network-driver';
export * from './inbound-media-file';
export * from './network-send-error';
export * from './send-deadline';
export * from './not-ready-error';
export * from './number-in-use-error';

// The sandbox: a simulated network shared by all workers of a deployment (CONTRACT §9).
export * from './sandbox/sandbox-store';
export * from './sandbox/memory-sandbox-store';
export * from './sandbox/redis-sandbox-store';
export * from './sandbox/sandbox-contact-message';
export * from './sandbox/sandbox-network-options';
export * from './sandbox/sandbox-control';
export * from './sandbox/sandbox-network-driver';

// The real network: WhatsApp through Baileys (loaded lazily, on the first session opened).
export * from './whatsapp/whatsapp-network-driver';
export type { WhatsAppNetworkOptions } from './whatsapp/whatsapp-settings';
export type { CredentialStore, CredentialItemChange } from './whatsapp/credential-store';
export type { SentMessageStore } from './whatsapp/sent-message-store';
export type { InboundOutbox } from './whatsapp/inbound-outbox';
export { ProcessInboundOutbox } from './whatsapp/inbound-outbox';
export type { InboundMediaStore } from './whatsapp/inbound-media-store';
export type { WhatsAppSocket, WhatsAppSocketFactory } from './whatsapp/whatsapp-socket';
export * from './network-groups';
export * from './group-action-error';
export * from './participant-result';
