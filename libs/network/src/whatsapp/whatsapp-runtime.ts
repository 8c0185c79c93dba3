// Loaded on the first `open` only (see WhatsAppNetworkDriver): everything that needs Baileys at
// run time is reached from here, so processes on the sandbox network never load the library.
import { makeWASocket } from '@whiskeysockets/baileys';
import type { WhatsAppSocketFactory } from './whatsapp-socket';

export { PostgresAuthState } from './postgres-auth-state';
export { WhatsAppSession } from './whatsapp-session';

/** The real socket: Baileys' makeWASocket with the options the session chose. */
export const baileysSocketFactory: WhatsAppSocketFactory = (config) => makeWASocket(config);
