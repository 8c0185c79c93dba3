import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Unlinks this device on the phone (Linked devices) and waits for WhatsApp's answer. Baileys'
 * own `logout()` sends the `remove-companion-device` IQ without waiting and closes the socket at
 * once; against the emulator the IQ was then lost with the connection (the phone kept listing the
 * device), so the answer is awaited here first. Baileys' logout follows (it closes with 401).
 */
export async function unlinkDevice(socket: WhatsAppSocket, deviceJid: string | undefined): Promise<void> {
  if (deviceJid && socket.query) {
    await socket.query({
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'md' },
      content: [{ tag: 'remove-companion-device', attrs: { jid: deviceJid, reason: 'user_initiated' } }],
    });
  }
  await socket.logout();
}
