// Plain records the services and their stores exchange (no I/O, no ORM types).
export type { Account } from './account';
export type { Plan } from './plan';
export type { ApiKey, ActiveKey } from './api-key';
export type { SessionRecord } from './session-record';
export type { NewSendFailure, SendFailure } from './send-failure';
export type { IdempotencyClaim } from './idempotency-claim';
export type { StoredWebhook } from './stored-webhook';
export type { UsageSnapshot, DailyHits } from './usage-records';
export type { SessionRef, SessionStatePatch, FencedWriteResult, StartClaim } from './session-writes';
export type { CredentialChange, CredentialWriteResult } from './credential-change';
