/** A message this tab sent, for the chat view (no API route lists a session's messages). */
export interface SentMessage {
  sessionId: string;
  /** The chat: the send's `data.key.remoteJid`. */
  chat: string;
  id: string;
  text: string;
  at: number;
}

/** The messages sent from this tab, newest first, at most 200. */
export class SentLog {
  private entries: SentMessage[] = [];

  add(entry: SentMessage): void {
    this.entries = [entry, ...this.entries].slice(0, 200);
  }

  of(sessionId: string): SentMessage[] {
    return this.entries.filter((entry) => entry.sessionId === sessionId);
  }
}
