export { WhatsAppEmulator, EmulatedConnection } from './emulator';
export { NoiseServerSession, certificateChain } from './noise-server';
export { EMULATOR_ROOT } from './root-key';
