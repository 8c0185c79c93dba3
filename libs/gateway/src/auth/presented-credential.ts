/**
 * What a customer request authenticated with, kept (as hashes only) by what checks it again later:
 * an API key, or a dashboard session's token (CONTRACT §11).
 */
export type PresentedCredential = { kind: 'key'; hash: string } | { kind: 'dashboard'; tokenHash: string };
