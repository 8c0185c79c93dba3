/** The outcome of checking a customer-given URL; `reason` is a sentence fit for a 400 response. */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };
