import type { InboundMedia, InboundNetworkMessage } from './inbound-network-message';
import { STATUS_BROADCAST_JID } from './jid-forms';
import { wellFormedText } from './well-formed-text';

// The rules that normalise a received message's content; libs/contracts' inbound event builders
// put them into the events' shapes (`inboundMessageEvent`).

/** Whether a received message is forwarded at all: never the account's own, nor status broadcasts. */
export function isForwarded(message: InboundNetworkMessage): boolean {
  return !message.fromMe && message.chat !== STATUS_BROADCAST_JID;
}

/** The media's description; a file name a phone can put anything in is made well-formed UTF-16. */
export function receivedMedia(message: InboundNetworkMessage): InboundMedia | null {
  if (message.media === null) return null;
  const { fileName } = message.media;
  return { ...message.media, fileName: fileName === null ? null : wellFormedText(fileName) };
}

/** Selected id for interactive replies (bots route on it), else the text, else the media caption. */
export function receivedText(message: InboundNetworkMessage): string {
  if (message.interaction?.id != null) return message.interaction.id;
  if (message.text !== '') return message.text;
  return message.media?.caption ?? '';
}
