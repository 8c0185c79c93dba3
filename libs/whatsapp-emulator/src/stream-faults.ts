import type { BinaryNode } from '@whiskeysockets/baileys';
import type { NetworkDirectory } from './directory';
import type { LinkedDevice } from './linked-device';

/** The `<stream:error>` of a restart (515), a conflict (440) or a condition Baileys does not know. */
export function streamError(error: 'conflict' | 'restart' | 'unknown'): BinaryNode {
  if (error === 'restart') return { tag: 'stream:error', attrs: { code: '515' } };
  const condition: BinaryNode =
    error === 'conflict'
      ? { tag: 'conflict', attrs: { type: 'replaced' } }
      : { tag: 'emulator-unknown-condition', attrs: {} };
  return { tag: 'stream:error', attrs: {}, content: [condition] };
}

/**
 * Faults on a logged-in device's connection (for the fault schedule and tests): the server ends
 * its stream, TCP is reset, or the server goes quiet; and the phone unlinking the device. Each
 * returns false (or does nothing) for a device that is not connected. Faults at login (refusals,
 * holds, restart storms) are DeviceLogin's.
 */
export class StreamFaults {
  constructor(private readonly directory: NetworkDirectory) {}

  /** The phone removes a linked device: it is told (401) and can never log in again. */
  unlink(device: LinkedDevice): void {
    this.directory.unlink(device);
    const connection = this.directory.connectionOf(device);
    if (!connection) return;
    connection.send({
      tag: 'stream:error',
      attrs: { code: '401' },
      content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }],
    });
    connection.close();
  }

  /**
   * The server ends a device's stream: `conflict` (440, another connection replaced it),
   * `restart` (515, reconnect at once) or `unknown` (a `<stream:error>` whose only child is a
   * condition Baileys does not know, which it reports as 500). Returns false when the device is
   * not connected.
   */
  endStream(device: LinkedDevice, error: 'conflict' | 'restart' | 'unknown'): boolean {
    const connection = this.directory.connectionOf(device);
    if (!connection) return false;
    connection.send(streamError(error));
    connection.close();
    return true;
  }

  /** The device's TCP connection is reset (no close frame, no stream error). False when offline. */
  resetConnection(device: LinkedDevice): boolean {
    const connection = this.directory.connectionOf(device);
    if (!connection) return false;
    connection.drop();
    return true;
  }

  /**
   * The server goes quiet on the device's connection: it stops answering pings and sending
   * anything, with TCP still open, until the device's keep-alive gives up. False when offline.
   */
  silenceConnection(device: LinkedDevice): boolean {
    const connection = this.directory.connectionOf(device);
    if (!connection) return false;
    connection.silence();
    return true;
  }
}
