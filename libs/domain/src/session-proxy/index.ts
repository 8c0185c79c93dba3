// A session's own proxy (CONTRACT §11): its URL's shape, the masked form shown, and its sealing.
export * from './session-proxy-url';
export * from './masked-proxy-url';
export * from './session-proxy-vault';
