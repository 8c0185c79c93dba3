// Injection tokens of the gateway's ports that are interfaces, not abstract classes.
/** The process's `JumbeConfig`. */
export const CONFIG = Symbol('CONFIG');
/** The process's pino logger. */
export const LOGGER = Symbol('LOGGER');
/** The request/reply bus to workers and dispatchers (`MessageBus`). */
export const BUS = Symbol('BUS');
/** Cache invalidations shared by every gateway (`InvalidationBus`). */
export const INVALIDATIONS = Symbol('INVALIDATIONS');
/** Per-key request rate limits (`RateLimiter`). */
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** The live usage counters every gateway counts into (`UsageCounterStore`). */
export const USAGE_COUNTERS = Symbol('USAGE_COUNTERS');
/** The `SecretBox` that seals webhook signing secrets. */
export const WEBHOOK_SECRETS = Symbol('WEBHOOK_SECRETS');
