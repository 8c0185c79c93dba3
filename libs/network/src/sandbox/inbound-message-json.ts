import type { InboundNetworkMessage } from '@jumbe/domain';

// Pending inbound messages are stored as JSON; the one field JSON cannot carry is the Date.

export function inboundMessageToJson(message: InboundNetworkMessage): string {
  return JSON.stringify({ ...message, timestamp: message.timestamp.toISOString() });
}

export function inboundMessageFromJson(json: string): InboundNetworkMessage {
  const parsed = JSON.parse(json) as Omit<InboundNetworkMessage, 'timestamp'> & { timestamp: string };
  return { ...parsed, timestamp: new Date(parsed.timestamp) };
}
