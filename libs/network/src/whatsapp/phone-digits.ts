import { jidDecode } from '@whiskeysockets/baileys';

/** `2547…:12@s.whatsapp.net` → `2547…`. */
export function phoneDigits(jid: string | null | undefined): string {
  const user = jid ? jidDecode(jid)?.user : undefined;
  return user ?? '';
}
