import { eventuallyValue } from '@jumbe/testing';

/**
 * The shared wait for a value, with the emulator specs' 20 s default: an emulated login (QR, pair,
 * first connection through real Baileys) takes seconds on a loaded machine.
 */
export const eventually = <T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20_000) =>
  eventuallyValue(what, probe, timeoutMs);
