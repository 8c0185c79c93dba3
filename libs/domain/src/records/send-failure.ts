/** A failed send as it is logged (CONTRACT §5). */
export interface NewSendFailure {
  accountId: string;
  sessionId: string;
  to: string | null;
  type: string;
  code: string;
  message: string;
}

export interface SendFailure extends NewSendFailure {
  id: string;
  createdAt: Date;
}
