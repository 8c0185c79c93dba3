/**
 * Test-only preload: makes the Baileys of THIS process trust the emulator's certificate root
 * instead of WhatsApp's, and its media host's TLS certificate (Baileys uploads media with Node's
 * `https` and the global agent). Load it with `node --require` (built) or a Jest `setupFiles`
 * entry; the product has no switch for this, so a process without the preload refuses the emulator.
 */
import { WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import { globalAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { MEDIA_HOST_CERT } from './media-certificate';
import { EMULATOR_ROOT } from './root-key';

(WA_CERT_DETAILS as { PUBLIC_KEY: Buffer }).PUBLIC_KEY = Buffer.from(EMULATOR_ROOT.public);
// The agent's options override each request's: every HTTPS request through the global agent of
// this process trusts the public roots plus the emulator's media host, nothing else changes.
globalAgent.options.ca = [...rootCertificates, MEDIA_HOST_CERT];
