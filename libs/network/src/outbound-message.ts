/** The messages a session sends, already validated by the gateway; `to` is always a JID. */
export interface OutboundText {
  to: string;
  text: string;
}

export type OutboundMediaType = 'image' | 'video' | 'audio' | 'document';

export interface OutboundMedia {
  to: string;
  /** http(s) URL the driver fetches the file from. */
  url: string;
  type: OutboundMediaType;
  caption?: string;
  mimetype?: string;
  fileName?: string;
}

export interface OutboundInteractive {
  to: string;
  text: string;
  title?: string;
  footer?: string;
  /** Contract actions, already validated by the gateway; the driver renders them for its network. */
  actions: unknown[];
}
