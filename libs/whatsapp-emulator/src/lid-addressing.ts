import type { EmulatedUser } from './emulated-user';

/**
 * How the server addresses a contact's messages to devices, in the order WhatsApp moved users
 * from phone numbers to LIDs: `pn` (`from` the phone number, no LID known), `pn-announcing-lid`
 * (still by phone number, with `sender_lid` naming the LID: the mapping announced, on which Baileys
 * stores it and moves its Signal session to the LID), then `lid` (`from` the LID with
 * `addressing_mode="lid"` and `sender_pn`).
 */
export type ContactAddressing = 'pn' | 'pn-announcing-lid' | 'lid';

/** The `from` and addressing attributes of a message stanza, per contact (see ContactAddressing). */
export class LidAddressing {
  private readonly modes = new Map<EmulatedUser, ContactAddressing>();

  /** From now on the server tells devices `contact`'s LID on its phone-number messages (`sender_lid`). */
  announce(contact: EmulatedUser): void {
    this.modes.set(contact, 'pn-announcing-lid');
  }

  /** From now on the server addresses `contact`'s messages by its LID (the PN→LID migration). */
  migrate(contact: EmulatedUser): void {
    this.modes.set(contact, 'lid');
  }

  modeOf(contact: EmulatedUser): ContactAddressing {
    return this.modes.get(contact) ?? 'pn';
  }

  /**
   * The envelope of a direct message from `contact`: a send's own choice (`pn`, `lid`) wins over
   * the contact's current mode.
   */
  envelope(contact: EmulatedUser, chosen?: 'pn' | 'lid'): { from: string; attrs: Record<string, string> } {
    const mode = chosen ?? this.modeOf(contact);
    if (mode === 'lid')
      return { from: contact.lid, attrs: { sender_pn: contact.jid, addressing_mode: 'lid' } };
    if (mode === 'pn-announcing-lid') return { from: contact.jid, attrs: { sender_lid: contact.lid } };
    return { from: contact.jid, attrs: {} };
  }

  /**
   * The participant attributes of a group message from `contact` (`addressing_mode` is the
   * group's: a LID-addressed group names members by LID with `participant_pn`).
   */
  participant(contact: EmulatedUser, groupAddressing: 'pn' | 'lid'): Record<string, string> {
    return groupAddressing === 'lid'
      ? { participant: contact.lid, participant_pn: contact.jid, addressing_mode: 'lid' }
      : { participant: contact.jid, addressing_mode: 'pn' };
  }
}
