/**
 * Test-only preload: makes the Baileys of THIS process trust the emulator's certificate root
 * instead of WhatsApp's, and its media host's TLS certificate (Baileys uploads media with Node's
 * `https` and the global agent, and downloads it with `fetch`). Load it with `node --require` (built) or a Jest `setupFiles`
 * entry; the product has no switch for this, so a process without the preload refuses the emulator.
 */
import { WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import { globalAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { Agent, setGlobalDispatcher } from 'undici';
import { MEDIA_HOST_CERT } from './media-certificate';
import { EMULATOR_ROOT } from './root-key';

(WA_CERT_DETAILS as { PUBLIC_KEY: Buffer }).PUBLIC_KEY = Buffer.from(EMULATOR_ROOT.public);
// The agent's options override each request's: every HTTPS request through the global agent of
// this process trusts the public roots plus the emulator's media host, nothing else changes.
globalAgent.options.ca = [...rootCertificates, MEDIA_HOST_CERT];
// Baileys downloads media with the global `fetch` (undici), which ignores the https agent: its
// global dispatcher gets the same trust. Node's fetch reads the dispatcher from Node's own global
// object, which Jest hides behind a sandbox's: reach it through a function of Node's realm.
const mediaTrust = new Agent({ connect: { ca: [...rootCertificates, MEDIA_HOST_CERT] } });
setGlobalDispatcher(mediaTrust);
const nodeGlobal = Buffer.constructor('return globalThis')() as typeof globalThis;
if (nodeGlobal !== globalThis) {
  (nodeGlobal as unknown as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')] = mediaTrust;
}
