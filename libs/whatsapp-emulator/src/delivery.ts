import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedConnection } from './emulator';
import { child, children } from './iq-nodes';
import type { LinkedDevice } from './linked-device';
import { OfflineBacklogReplay } from './offline-backlog';

/**
 * How stanzas reach linked devices: at once to a device online, kept until it answers them
 * (receipt or ack), and otherwise in its offline backlog, replayed in batches on its next login
 * (OfflineBacklogReplay). What a device never answered before its connection closed goes back to
 * the server and arrives again on that next login.
 */
export class DeviceDelivery {
  /**
   * The largest offline batch the server sends (the device asks for 100 at a time); lower it to
   * make a backlog arrive in several batches.
   */
  offlineBatchLimit = Number.POSITIVE_INFINITY;

  /** Connections waiting to be told their backlog is complete (see holdOfflineCompletion). */
  private heldCompletions: (() => void)[] | null = null;

  constructor(private readonly connectionOf: (device: LinkedDevice) => EmulatedConnection | undefined) {}

  /** Hands a stanza to the device now, or keeps it for its next login (offline backlog). */
  deliver(device: LinkedDevice, stanza: BinaryNode): void {
    const connection = this.connectionOf(device);
    if (connection) {
      // Kept until the device answers it (receipt or ack): a connection that closes first hands it back.
      if (stanza.tag === 'message') device.unanswered.set(stanza.attrs.id ?? '', stanza);
      connection.send(stanza);
    } else {
      device.backlog.push({ ...stanza, attrs: { ...stanza.attrs, offline: '1' } });
    }
  }

  /** The device answered messages (a receipt or an ack): the server forgets them. */
  answered(device: LinkedDevice, node: BinaryNode): void {
    const ids = [node.attrs.id, ...children(child(node, 'list')).map((item) => item.attrs.id)];
    for (const id of ids) if (id) device.unanswered.delete(id);
  }

  /** The device went offline: what it never answered is delivered again, now on its next login. */
  redeliverUnanswered(device: LinkedDevice): void {
    const unanswered = [...device.unanswered.values()];
    device.unanswered.clear();
    for (const stanza of unanswered) this.deliver(device, stanza);
  }

  /**
   * What waited for the device, in batches (OfflineBacklogReplay). Each stanza is kept until
   * answered like any delivery, and what was never sent goes back to the backlog when the
   * connection closes: a device that dies during its backlog gets the unanswered rest again.
   */
  replayBacklog(device: LinkedDevice, connection: EmulatedConnection): void {
    const replay = new OfflineBacklogReplay(connection, device.backlog.splice(0), {
      deliver: (stanza) => this.deliver(device, stanza),
      unanswered: (id) => device.unanswered.has(id),
      completionAllowed: () => this.offlineCompletionAllowed(),
      batchLimit: this.offlineBatchLimit,
    });
    connection.on('node', (node: BinaryNode) => replay.onDeviceNode(node));
    // After the network's own 'closed' handler, which queued the unanswered stanzas first.
    connection.once('closed', () => device.backlog.push(...replay.takeUnsent()));
    replay.start();
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
