/** A WhatsApp Web client version, as Baileys' `version` option takes it: `[2, 3000, revision]`. */
export type WaVersion = [number, number, number];

/** Finds the version WhatsApp currently serves, or null when it cannot be reached in time. */
export type WaVersionFetcher = () => Promise<WaVersion | null>;

/** By default, a fetch asked for more often than this is answered from the last result. */
const MIN_REFRESH_INTERVAL_MS = 60_000;

/**
 * The client version every new socket announces. WhatsApp refuses clients older than its minimum
 * with 405, and the version pinned in Baileys ages: so it is fetched when the first session opens
 * and again after a 405, unless the operator pinned one (JUMBE_WHATSAPP_VERSION). Offline, or when
 * the fetch fails, sockets use Baileys' own pinned version (`undefined` here).
 */
export class WaVersionSource {
  private version: WaVersion | undefined;
  private fetching: Promise<void> | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly pinned: WaVersion | undefined,
    private readonly fetcher: WaVersionFetcher,
    private readonly now: () => number = Date.now,
    private readonly minRefreshIntervalMs = MIN_REFRESH_INTERVAL_MS,
  ) {}

  /** The version for the next socket (fetched once, on first use). */
  async current(): Promise<WaVersion | undefined> {
    if (this.pinned) return this.pinned;
    if (this.fetchedAt === Number.NEGATIVE_INFINITY) await this.fetch();
    else if (this.fetching) await this.fetching;
    return this.version;
  }

  /** After a 405: fetch again (at most once a minute, by default, across all sessions of this worker). */
  async refresh(): Promise<void> {
    if (this.pinned || this.now() - this.refreshedAt < this.minRefreshIntervalMs) return;
    this.refreshedAt = this.now();
    await this.fetch();
  }

  private fetch(): Promise<void> {
    this.fetching ??= this.fetcher()
      .catch(() => null)
      .then((found) => {
        this.fetchedAt = this.now();
        if (found) this.version = found;
      })
      .finally(() => {
        this.fetching = null;
      });
    return this.fetching;
  }
}

/** `2.3000.1023456789` (JUMBE_WHATSAPP_VERSION) → `[2, 3000, 1023456789]`, or null when malformed. */
export function parseWaVersion(text: string): WaVersion | null {
  const parts = text.trim().split('.');
  if (parts.length !== 3 || !parts.every((part) => /^\d{1,10}$/.test(part))) return null;
  return parts.map(Number) as WaVersion;
}
