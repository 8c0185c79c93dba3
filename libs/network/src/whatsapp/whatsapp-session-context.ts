import type { Logger } from 'pino';
import type { NetworkSession } from '../network-session';
import type { SessionEvents } from '../session-events';
import type { SessionRef } from '../session-ref';
import type { InboundInbox } from './inbound-inbox';
import type { InboundMediaArchive } from './inbound-media-archive';
import type { PostgresAuthState } from './postgres-auth-state';
import type { SessionProxyAgents } from './proxy-agents';
import type { QuoteArchive } from './quote-archive';
import type { SentMessageArchive } from './sent-message-archive';
import type { SessionMemory } from './session-memory';
import type { WaVersionSource } from './wa-version-source';
import type { WhatsAppSettings } from './whatsapp-settings';
import type { BaileysLogger, WhatsAppSocketFactory } from './whatsapp-socket';

/** What one WhatsApp session is given by the driver: its stores, settings and owner's callbacks. */
export interface WhatsAppSessionContext {
  ref: SessionRef;
  events: SessionEvents;
  settings: WhatsAppSettings;
  socketFactory: WhatsAppSocketFactory;
  auth: PostgresAuthState;
  memory: SessionMemory;
  /** What this session sent, for recipients' retry requests (memory, then PostgreSQL). */
  sent: SentMessageArchive;
  /** What this session received, until the event stream has it (the durable outbox). */
  inbox: InboundInbox;
  /** What replies of this session can quote: messages it received or sent. */
  quotes: QuoteArchive;
  /** How to download received media files later (GET /messages/media); apart from the inbox. */
  media: InboundMediaArchive;
  logger: Logger;
  baileysLogger: BaileysLogger;
  /** Runs `start` when this driver may open its next socket (staggering); returns a cancel. */
  schedule: (start: () => void) => () => void;
  /** The client version each new socket announces (refreshed after a 405). */
  versions: WaVersionSource;
  /** False once the worker lost the session's shard: never reconnect then. */
  stillOwned: () => boolean;
  /** Tells the driver the connection ended, so it forgets it. */
  onEnded: (session: NetworkSession) => void;
  /** The session's own proxy: every socket, upload and download of Baileys goes through it. */
  proxy?: SessionProxyAgents | null;
}
