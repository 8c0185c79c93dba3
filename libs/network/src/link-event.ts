import type { DisconnectReason } from './disconnect-reason';

/** A change of a session's link to the network; each maps onto a session state (CONTRACT §4). */
export type LinkEvent =
  /** A (new) QR value to show: state `qr_ready`. */
  | { type: 'qr'; qr: string }
  /** A code to type on the phone: state `pairing_code_ready`. */
  | { type: 'pairing_code'; code: string }
  /** Linked, (re)connecting: state `connecting`. */
  | { type: 'connecting' }
  /** Linked and online; `phoneNumber` is digits only. */
  | { type: 'connected'; phoneNumber: string }
  /** Final for this connection: the driver will not reconnect it by itself. */
  | { type: 'disconnected'; reason: DisconnectReason };
