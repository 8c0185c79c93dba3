/** Why a send (or a sandbox contact's message) could not reach the network; codes are CONTRACT §2 error codes. */
export type NetworkSendErrorCode =
  | 'session_not_connected'
  | 'network_error'
  | 'media_fetch_failed'
  /** The worker holds as much outbound media as it may (its byte budget); retry shortly. */
  | 'media_busy'
  /** Nothing was sent: the send could not go out before its caller's deadline (withSendDeadline). */
  | 'unavailable'
  | 'message_not_found'
  | 'message_not_editable'
  /** A sandbox contact's message that cannot be (a vote for options the poll does not have). */
  | 'validation_error';

export class NetworkSendError extends Error {
  override readonly name = 'NetworkSendError';

  constructor(
    readonly code: NetworkSendErrorCode,
    message: string,
  ) {
    super(message);
  }
}
