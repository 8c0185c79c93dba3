/**
 * Where the coordination adapters report connection trouble. A plain callback rather than a
 * logging library so that every app can plug in its own logger (or none, in tests).
 */
export type CoordinationLogger = (message: string, error?: unknown) => void;
