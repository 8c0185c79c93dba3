/** Why a connection ended for good (CONTRACT §4 `reason`); the driver has already given up reconnecting. */
export type DisconnectReason =
  | 'logged_out'
  | 'qr_timeout'
  | 'number_in_use'
  | 'network_error'
  | 'connection_replaced'
  | 'forbidden'
  | 'multidevice_mismatch'
  | 'client_outdated'
  | 'bad_session'
  | 'network_refused'
  | 'shutdown';
