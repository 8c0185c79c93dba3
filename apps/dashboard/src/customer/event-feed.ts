import { useEffect, useState } from 'preact/hooks';
import { type Credential, EVENT_TYPES } from '../api';
import { readEventStream, StreamUnavailable, type StreamEvent } from './event-stream';

export type FeedState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'paused' }
  | { kind: 'unavailable'; reason: string; retryInS: number };

export interface FeedEvent extends StreamEvent {
  /** When this tab received it. */
  receivedAt: number;
}

/** How many events the tab keeps (the monitor and the chat view read them). */
const KEEP = 500;
/** Waits before reconnecting after the stream ended or was refused, growing to the last. */
const RETRY_S = [2, 5, 15, 30, 60];

/**
 * The account's live event stream, shared by the monitor and the chat view: one connection per
 * browser tab, open while the tab is shown, resumed from the last event id when it is shown
 * again or after a drop (so nothing is missed while it was away, as far as the server keeps it).
 */
export class EventFeed {
  private events: FeedEvent[] = [];
  private state: FeedState = { kind: 'paused' };
  private lastEventId: string | null = null;
  private controller: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private withFilter = true;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly credential: Extract<Credential, { kind: 'dashboard' }>) {}

  snapshot(): { events: FeedEvent[]; state: FeedState } {
    return { events: this.events, state: this.state };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens the stream (if it is not open already). */
  resume(): void {
    if (this.controller) return;
    this.clearRetry();
    const controller = new AbortController();
    this.controller = controller;
    this.set({ kind: 'connecting' });
    void readEventStream({
      credential: this.credential,
      lastEventId: this.lastEventId,
      // Every type the stream can send; the monitor filters what it shows.
      query: this.withFilter ? `?types=${EVENT_TYPES.join(',')}` : '',
      signal: controller.signal,
      onOpen: () => {
        this.failures = 0;
        this.set({ kind: 'live' });
      },
      onEvent: (event) => this.add(event),
    }).then(
      () => this.ended(controller, 'The server ended the event stream.', 0),
      (error: unknown) => {
        const status = error instanceof StreamUnavailable ? error.status : 0;
        // A gateway whose stream takes no type filter: ask for what it sends by default.
        if (status === 400 && this.withFilter) {
          this.withFilter = false;
          this.failures -= 1;
        }
        this.ended(controller, error instanceof Error ? error.message : String(error), status);
      },
    );
  }

  /** Closes the stream (a hidden tab, or sign-out); `resume` continues after the last event. */
  pause(): void {
    this.clearRetry();
    this.controller?.abort();
    this.controller = null;
    this.set({ kind: 'paused' });
  }

  clear(): void {
    this.events = [];
    this.notify();
  }

  private ended(controller: AbortController, reason: string, status: number): void {
    if (this.controller !== controller || controller.signal.aborted) return;
    this.controller = null;
    const wait = RETRY_S[Math.min(Math.max(this.failures, 0), RETRY_S.length - 1)] ?? 60;
    this.failures += 1;
    const text =
      status === 404
        ? `This gateway has no event stream (GET /api/v1/events answered 404). ${reason}`
        : reason;
    this.set({ kind: 'unavailable', reason: text, retryInS: wait });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.resume();
    }, wait * 1000);
  }

  private add(event: StreamEvent): void {
    // The stream's own frames (`stream.start`, …) say nothing about the account's sessions.
    if (event.type.startsWith('stream.')) return;
    if (event.id !== null) this.lastEventId = event.id;
    this.events = [{ ...event, receivedAt: Date.now() }, ...this.events].slice(0, KEEP);
    this.notify();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private set(state: FeedState): void {
    this.state = state;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The feed's events and state, re-rendered as they change. */
export function useEventFeed(feed: EventFeed | null): { events: FeedEvent[]; state: FeedState } {
  const [snapshot, setSnapshot] = useState<{ events: FeedEvent[]; state: FeedState }>(
    () => feed?.snapshot() ?? { events: [], state: { kind: 'paused' } },
  );
  useEffect(() => {
    if (!feed) return undefined;
    setSnapshot(feed.snapshot());
    return feed.subscribe(() => setSnapshot(feed.snapshot()));
  }, [feed]);
  return snapshot;
}
