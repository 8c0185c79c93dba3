import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedConnection } from './emulator';
import type { LinkedDevice } from './linked-device';
import { OfflineBacklogReplay } from './offline-backlog';
import { answeredKeys, unansweredKey } from './unanswered-stanzas';

/**
 * How stanzas reach linked devices. The server keeps one queue per device, in the order it took
 * the stanzas: handed at once to a device online (and kept until it answers them, receipt or
 * ack), behind what is still waiting while its backlog is being replayed, and otherwise kept for
 * its next login, replayed in batches (OfflineBacklogReplay). What a device never answered before
 * its connection closed (or was replaced) goes back in its place, ahead of what was never sent.
 */
export class DeviceDelivery {
  /**
   * The largest offline batch the server sends (the device asks for 100 at a time); lower it to
   * make a backlog arrive in several batches.
   */
  offlineBatchLimit = Number.POSITIVE_INFINITY;

  /** Connections waiting to be told their backlog is complete (see holdOfflineCompletion). */
  private heldCompletions: (() => void)[] | null = null;

  /** The replay on each device's current connection (until it closes or a new login replaces it). */
  private readonly replays = new WeakMap<LinkedDevice, OfflineBacklogReplay>();

  constructor(private readonly connectionOf: (device: LinkedDevice) => EmulatedConnection | undefined) {}

  /** Takes a stanza for the device: handed over now, behind its unsent backlog, or kept for its next login. */
  deliver(device: LinkedDevice, stanza: BinaryNode): void {
    const connection = this.connectionOf(device);
    if (!connection) device.backlog.push(offline(stanza));
    // Taken while the device is online: sent live (unmarked), only after what it queues behind.
    else if (this.replays.get(device)?.sending) this.replays.get(device)?.enqueue(stanza);
    else this.handOver(device, connection, stanza);
  }

  /** The device answered messages (a receipt or an ack) or a receipt (its ack): the server forgets them. */
  answered(device: LinkedDevice, node: BinaryNode): void {
    for (const key of answeredKeys(node)) device.unanswered.delete(key);
  }

  /** The device went offline: what it never answered is delivered again, now on its next login. */
  redeliverUnanswered(device: LinkedDevice): void {
    this.requeue(device);
  }

  /**
   * What waited for the device, in batches (OfflineBacklogReplay). Each stanza is kept until
   * answered like any delivery; a connection that closes or is replaced during the replay puts
   * the unanswered ones and the unsent rest back in front of the queue (requeue).
   */
  replayBacklog(device: LinkedDevice, connection: EmulatedConnection): void {
    // A connection this login replaced (440) closes later: what it still holds comes first.
    this.requeue(device);
    const replay = new OfflineBacklogReplay(connection, device.backlog.splice(0), {
      deliver: (stanza) => this.handOver(device, connection, stanza),
      unanswered: (id) => device.unanswered.has(id),
      completionAllowed: () => this.offlineCompletionAllowed(),
      batchLimit: this.offlineBatchLimit,
    });
    this.replays.set(device, replay);
    connection.on('node', (node: BinaryNode) => replay.onDeviceNode(node));
    replay.start();
  }

  /**
   * Puts back in front of the device's queue, in the order the server took them, what it handed
   * over and never got an answer for, then what its replay had not sent yet: everything handed
   * over was taken before anything still unsent, since deliver queues behind a replay's rest.
   */
  private requeue(device: LinkedDevice): void {
    const unanswered = [...device.unanswered.values()].map(offline);
    device.unanswered.clear();
    const unsent = this.replays.get(device)?.takeUnsent() ?? [];
    this.replays.delete(device);
    device.backlog.unshift(...unanswered, ...unsent);
  }

  /** Sends a stanza on the connection; a message or a receipt is kept until the device answers it. */
  private handOver(device: LinkedDevice, connection: EmulatedConnection, stanza: BinaryNode): void {
    // The map's order is the order handed over (an id answered and sent again goes to the end).
    const key = unansweredKey(stanza);
    if (key !== undefined) device.unanswered.set(key, stanza);
    connection.send(stanza);
  }

  /**
   * Withholds `<ib><offline>` (the end of the offline backlog) from every device until the returned
   * release is called: the backlog is delivered and answered, and Baileys still holds it in its
   * event buffer, as it does while a long backlog replays on the real service.
   */
  holdOfflineCompletion(): () => void {
    const held: (() => void)[] = (this.heldCompletions ??= []);
    return () => {
      if (this.heldCompletions === held) this.heldCompletions = null;
      for (const release of held.splice(0)) release();
    };
  }

  /** Devices whose backlog was delivered and answered but not yet completed (a hold is on). */
  get offlineCompletionsHeld(): number {
    return this.heldCompletions?.length ?? 0;
  }

  private offlineCompletionAllowed(): Promise<void> {
    const held = this.heldCompletions;
    return held ? new Promise((resolve) => held.push(resolve)) : Promise.resolve();
  }
}

/** The stanza as the server sends it from a device's offline queue. */
function offline(stanza: BinaryNode): BinaryNode {
  return { ...stanza, attrs: { ...stanza.attrs, offline: '1' } };
}
