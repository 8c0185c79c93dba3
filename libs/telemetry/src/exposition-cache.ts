/** How long one rendered exposition is served to every scrape before the registry is read again. */
export const EXPOSITION_MAX_AGE_MS = 1_000;

/**
 * One rendering of the registry shared by every scrape within `maxAgeMs` of it, and by every scrape
 * that arrives while it renders. Rendering runs each gauge's collect (dependency probes, the
 * consumer-pending reads) and builds the whole text on the event loop, so without this each scrape
 * pays it again: 20 connections scraping in a loop took most of a core and pushed other tenants'
 * API latency up fifty-fold (issue 29). With it, scraping costs at most one render per interval
 * however often and however many clients ask; a Prometheus scraping every 15 s sees data at most
 * `maxAgeMs` old.
 */
export class ExpositionCache {
  private body: string | null = null;
  /** When the cached body finished rendering: the interval counts from there, so a slow render
   * cannot run back to back. */
  private renderedAt = 0;
  private rendering: Promise<string> | null = null;

  constructor(
    private readonly render: () => Promise<string>,
    private readonly maxAgeMs = EXPOSITION_MAX_AGE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The cached body while it is fresh, else the render in progress, else a new render. */
  current(): Promise<string> {
    if (this.body !== null && this.now() - this.renderedAt < this.maxAgeMs) {
      return Promise.resolve(this.body);
    }
    this.rendering ??= this.renderAndKeep();
    return this.rendering;
  }

  private async renderAndKeep(): Promise<string> {
    try {
      const body = await this.render();
      this.body = body;
      this.renderedAt = this.now();
      return body;
    } finally {
      // A failed render is not kept: the next scrape tries again.
      this.rendering = null;
    }
  }
}
