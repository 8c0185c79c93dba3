/** The network's key of a sent message, returned as `data.key` by the send routes (CONTRACT §5). */
export interface SentKey {
  remoteJid: string;
  fromMe: true;
  id: string;
}
