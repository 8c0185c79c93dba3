/**
 * Test-only preload: makes the Baileys of THIS process trust the emulator's certificate root
 * instead of WhatsApp's. Load it with `node --require` (built) or a Jest `setupFiles` entry; the
 * product has no switch for this, so a process without the preload refuses the emulator.
 */
import { WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import { EMULATOR_ROOT } from './root-key';

(WA_CERT_DETAILS as { PUBLIC_KEY: Buffer }).PUBLIC_KEY = Buffer.from(EMULATOR_ROOT.public);
