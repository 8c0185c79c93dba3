import type { proto } from '@whiskeysockets/baileys';

/** How many times a send WhatsApp never acknowledged goes out again before it is reported failed. */
export const MAX_UNACKED_RESENDS = 3;
/** Acks remembered for sends not recorded yet (the ack can come before Baileys' send returns). */
const EARLY_ACKS_KEPT = 1_000;
/**
 * How long a send answered after its caller's deadline is held, unsent, for a retry under the
 * same send id to learn its id (`learned`); given up (reported failed) at the first socket after.
 */
export const LATE_SEND_HOLD_MS = 10 * 60_000;
/** Late sends given up, remembered so a retry that comes later still is sent anew. */
const GIVEN_UP_KEPT = 1_000;

/** A send handed to WhatsApp that its server has not acknowledged yet. */
export interface UnackedSend {
  readonly id: string;
  readonly to: string;
  readonly message: proto.IMessage;
  /** A status post's audience: it goes out again to them (status@broadcast names nobody). */
  readonly statusJidList?: string[] | undefined;
  /** The socket it last went out on: it goes out again only on a later one. */
  socket: object;
  /** How many times it went out again. */
  resends: number;
  /**
   * False for a send whose caller was answered after its deadline (the gateway had answered 504
   * `timeout`, outcome unknown): it does not go out again unless a retry learns its id (`learned`),
   * or the customer, told "outcome unknown", would find it delivered after all.
   */
  resendable: boolean;
  /** When it was recorded (epoch ms): a late one is held LATE_SEND_HOLD_MS from then. */
  readonly recordedAt: number;
}

/**
 * The sends of one session that WhatsApp's server has not acknowledged (`<ack class="message">`).
 * Baileys answers a send once its stanza is written to the socket; on a connection that has gone
 * quiet (keep-alive silence, a dead path: TCP still open) the stanza never reaches WhatsApp, and
 * nothing sent it again after the reconnect: the customer held an id for a message nobody got
 * (the fault schedule's `silentlyDropped`). What is still here when a new socket opens goes out
 * again on it, under the same id; what cannot go out (too many tries, the session ended) is
 * reported `failed`.
 */
export class UnackedSends {
  private readonly pending = new Map<string, UnackedSend>();
  private readonly earlyAcks = new Set<string>();
  private readonly givenUpLate = new Set<string>();

  get size(): number {
    return this.pending.size;
  }

  /** A send that went out on `socket` (unless its ack came already); `resendable`: as UnackedSend's. */
  record(
    id: string,
    to: string,
    message: proto.IMessage,
    socket: object,
    statusJidList?: string[],
    resendable = true,
  ): void {
    if (this.earlyAcks.delete(id)) return;
    this.pending.set(id, {
      id,
      to,
      message,
      socket,
      resends: 0,
      statusJidList,
      resendable,
      recordedAt: Date.now(),
    });
  }

  /**
   * A caller learned send `id`'s id after all (a retry was answered with it in time): if it is
   * held unsent, it goes out again like any other from now on. False when it was held and given
   * up already (nothing will send it: the retry must be sent anew); true otherwise (waiting,
   * acknowledged, or never recorded here).
   */
  learned(id: string): boolean {
    const send = this.pending.get(id);
    if (send) send.resendable = true;
    return !this.givenUpLate.has(id);
  }

  /** Send `id` if it is still waiting for WhatsApp's ack. */
  waiting(id: string): UnackedSend | undefined {
    return this.pending.get(id);
  }

  /** WhatsApp's server took the message (an ack with an error attribute counts: it got it). */
  acked(id: string): void {
    if (this.pending.delete(id)) return;
    this.earlyAcks.add(id);
    if (this.earlyAcks.size > EARLY_ACKS_KEPT) {
      const oldest = this.earlyAcks.values().next();
      if (!oldest.done) this.earlyAcks.delete(oldest.value);
    }
  }

  /**
   * What went out on an earlier socket than `socket` and was never acknowledged, in send order:
   * `resend` to go out again on it, `give up` once tried MAX_UNACKED_RESENDS times, or once held
   * LATE_SEND_HOLD_MS when its caller was answered too late and no retry learned it (taken out).
   */
  dueOn(socket: object, now = Date.now()): { resend: UnackedSend[]; giveUp: UnackedSend[] } {
    const resend: UnackedSend[] = [];
    const giveUp: UnackedSend[] = [];
    for (const send of this.pending.values()) {
      if (send.socket === socket) continue;
      if (!send.resendable) {
        if (now - send.recordedAt < LATE_SEND_HOLD_MS) continue;
        this.pending.delete(send.id);
        this.rememberGivenUp(send.id);
        giveUp.push(send);
      } else if (send.resends >= MAX_UNACKED_RESENDS) {
        this.pending.delete(send.id);
        giveUp.push(send);
      } else {
        resend.push(send);
      }
    }
    return { resend, giveUp };
  }

  private rememberGivenUp(id: string): void {
    this.givenUpLate.add(id);
    if (this.givenUpLate.size > GIVEN_UP_KEPT) {
      const oldest = this.givenUpLate.values().next();
      if (!oldest.done) this.givenUpLate.delete(oldest.value);
    }
  }

  /** Everything still unacknowledged, taken out (the session ends: they will not go out again). */
  takeAll(): UnackedSend[] {
    const all = [...this.pending.values()];
    this.pending.clear();
    return all;
  }
}
