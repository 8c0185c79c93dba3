/** Why a send (or a sandbox contact's message) could not reach the network; codes are CONTRACT §2 error codes. */
export type NetworkSendErrorCode =
  | 'session_not_connected'
  | 'network_error'
  | 'media_fetch_failed'
  | 'message_not_found'
  | 'message_not_editable';

export class NetworkSendError extends Error {
  override readonly name = 'NetworkSendError';

  constructor(
    readonly code: NetworkSendErrorCode,
    message: string,
  ) {
    super(message);
  }
}
