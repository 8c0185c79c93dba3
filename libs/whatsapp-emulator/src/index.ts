export { WhatsAppEmulator, EmulatedConnection } from './emulator';
export { EmulatedNetwork, type ReceivedMessage, type SendOptions } from './network';
export { EmulatedUser } from './emulated-user';
export { type LinkedDevice, deviceJid, deviceLid } from './linked-device';
export { parseLinkingQr, type LinkingQr } from './linking-qr';
export { SignalParty, type PreKeyBundle } from './signal-party';
export { NoiseServerSession, certificateChain } from './noise-server';
export { EMULATOR_ROOT } from './root-key';
export { WorkerLink } from './worker-link';
