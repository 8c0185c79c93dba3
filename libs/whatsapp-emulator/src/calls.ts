import { randomBytes } from 'node:crypto';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';
import { child } from './iq-nodes';
import type { LinkedDevice } from './linked-device';

/** A call a device declined (`<call><reject …/></call>`), as the server saw it. */
export interface RejectedCall {
  callId: string;
  /** The user whose device declined it. */
  by: EmulatedUser;
  /** The caller the reject was addressed to. */
  to: string;
  callCreator: string;
}

/**
 * Voice and video calls as far as a linked device sees them: a contact's `<call><offer>` rings
 * every device of the callee, and a device may decline it (`<call><reject>`), which the server
 * acknowledges. Media never flows.
 */
export class EmulatedCalls {
  readonly rejected: RejectedCall[] = [];
  /** Calls offered: id → caller. */
  private readonly offered = new Map<string, EmulatedUser>();

  constructor(
    private readonly devicesOf: (user: EmulatedUser) => LinkedDevice[],
    private readonly deliver: (device: LinkedDevice, stanza: BinaryNode) => void,
  ) {}

  /** `caller` calls `callee`: every linked device of the callee receives the offer. Returns the call id. */
  ring(caller: EmulatedUser, callee: EmulatedUser, options: { video?: boolean } = {}): string {
    const callId = randomBytes(16).toString('hex').toUpperCase();
    this.offered.set(callId, caller);
    const media: BinaryNode[] = options.video
      ? [
          { tag: 'audio', attrs: { enc: 'opus', rate: '16000' } },
          { tag: 'video', attrs: { enc: 'vp8', dec: 'vp8' } },
        ]
      : [{ tag: 'audio', attrs: { enc: 'opus', rate: '16000' } }];
    for (const device of this.devicesOf(callee)) {
      this.deliver(device, {
        tag: 'call',
        attrs: {
          from: caller.jid,
          id: randomBytes(8).toString('hex').toUpperCase(),
          t: String(Math.floor(Date.now() / 1000)),
        },
        content: [
          {
            tag: 'offer',
            attrs: { 'call-id': callId, 'call-creator': caller.jid, caller_pn: caller.jid },
            content: media,
          },
        ],
      });
    }
    return callId;
  }

  /** A `<call>` a device sent; the server's answer (an ack), or null for what it ignores. */
  onDeviceCall(device: LinkedDevice, node: BinaryNode): BinaryNode | null {
    const reject = child(node, 'reject');
    if (!reject) return null;
    const callId = reject.attrs['call-id'] ?? '';
    this.rejected.push({
      callId,
      by: device.user,
      to: node.attrs.to ?? '',
      callCreator: reject.attrs['call-creator'] ?? '',
    });
    return {
      tag: 'ack',
      attrs: { id: node.attrs.id ?? '', class: 'call', type: 'reject', from: node.attrs.to ?? '' },
    };
  }

  /** Whether `callId` was offered by the emulator (a reject of another call is still recorded). */
  wasOffered(callId: string): boolean {
    return this.offered.has(callId);
  }
}
