import type { WACallEvent } from '@whiskeysockets/baileys';
import type { IncomingCall } from '../profile';

/** A ringing call from Baileys' `call` event, or null for the call's later steps (accept, end…). */
export function incomingCallOf(call: WACallEvent): IncomingCall | null {
  if (call.status !== 'offer') return null;
  const callerPn = (call as WACallEvent & { callerPn?: string }).callerPn;
  return {
    id: call.id,
    from: call.from,
    callerPhone: phoneOf(callerPn) ?? phoneOf(call.from),
    video: call.isVideo === true,
    group: call.isGroup === true,
    groupJid: call.groupJid ?? null,
    offeredAt: call.date instanceof Date && !Number.isNaN(call.date.getTime()) ? call.date : new Date(),
  };
}

/** The digits of a phone-number JID (`2547…:3@s.whatsapp.net`), or null for a LID or nothing. */
function phoneOf(jid: string | undefined): string | null {
  if (!jid?.endsWith('@s.whatsapp.net')) return null;
  const user = jid.split('@')[0]?.split(':')[0] ?? '';
  return /^\d+$/.test(user) ? user : null;
}
