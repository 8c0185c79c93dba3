import type { InteractiveAction } from '@jumbe/contracts';

/**
 * The messages a session sends, already validated by the gateway; `to` is always a JID. One
 * discriminated union, so adding a message kind means one member here and one case per driver.
 */
export interface OutboundText {
  kind: 'text';
  to: string;
  text: string;
}

export type OutboundMediaType = 'image' | 'video' | 'audio' | 'document';

export interface OutboundMedia {
  kind: 'media';
  to: string;
  /** http(s) URL the driver fetches the file from. */
  url: string;
  type: OutboundMediaType;
  caption?: string;
  mimetype?: string;
  fileName?: string;
}

export interface OutboundInteractive {
  kind: 'interactive';
  to: string;
  text: string;
  title?: string;
  footer?: string;
  /** Contract actions; each driver renders them for its network. */
  actions: InteractiveAction[];
}

export type OutboundMessage = OutboundText | OutboundMedia | OutboundInteractive;
