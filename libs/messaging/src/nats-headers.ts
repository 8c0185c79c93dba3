import { headers, type MsgHdrs } from 'nats';
import type { BusHeaders } from './message-bus';

/** NATS headers for a message, or none at all when there is nothing to carry (smaller messages). */
export function toNatsHeaders(given: BusHeaders | undefined): MsgHdrs | undefined {
  if (given === undefined) return undefined;
  const entries = Object.entries(given);
  if (entries.length === 0) return undefined;
  const carried = headers();
  for (const [name, value] of entries) carried.set(name, value);
  return carried;
}

/** A message's NATS headers as plain text pairs (the first value of each). */
export function fromNatsHeaders(carried: MsgHdrs | undefined): BusHeaders {
  if (carried === undefined) return {};
  const plain: Record<string, string> = {};
  for (const name of carried.keys()) plain[name] = carried.get(name);
  return plain;
}
