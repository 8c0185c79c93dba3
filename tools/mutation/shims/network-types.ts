// What the session worker's inbound path takes from @jumbe/network: types only. The checker of
// `npm run mutation session-worker` resolves @jumbe/network here (tsconfig.session-worker.json), so
// it compiles the inbound path without the whole WhatsApp driver (faster, and a type error in the
// driver cannot stop a run that mutates none of it).
export type { SessionRef } from '../../../libs/network/src/session-ref';
export type { MessageStatusReport, SentMessageStatus } from '../../../libs/network/src/message-status-report';
