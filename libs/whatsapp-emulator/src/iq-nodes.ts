import type { BinaryNode } from '@whiskeysockets/baileys';

/** The server's `result` answer to a client IQ. */
export function iqResult(iq: BinaryNode, content?: BinaryNode[]): BinaryNode {
  return {
    tag: 'iq',
    attrs: { from: 's.whatsapp.net', type: 'result', id: iq.attrs.id ?? '' },
    ...(content ? { content } : {}),
  };
}

/** The server's `error` answer (Baileys' assertNodeErrorFree turns it into a thrown Boom). */
export function iqError(iq: BinaryNode, code: number, text: string): BinaryNode {
  return {
    tag: 'iq',
    attrs: { from: 's.whatsapp.net', type: 'error', id: iq.attrs.id ?? '' },
    content: [{ tag: 'error', attrs: { code: String(code), text } }],
  };
}

export function children(node: BinaryNode | undefined): BinaryNode[] {
  return Array.isArray(node?.content) ? node.content : [];
}

export function child(node: BinaryNode | undefined, tag: string): BinaryNode | undefined {
  return children(node).find((item) => item.tag === tag);
}

export function bytesOf(node: BinaryNode | undefined): Buffer | undefined {
  const content = node?.content;
  if (content instanceof Uint8Array) return Buffer.from(content);
  if (typeof content === 'string') return Buffer.from(content, 'utf-8');
  return undefined;
}

/** Big-endian unsigned integer of a node's bytes (ids and registration ids). */
export function uintOf(node: BinaryNode | undefined): number | undefined {
  const bytes = bytesOf(node);
  if (!bytes || bytes.length === 0 || bytes.length > 4) return undefined;
  return bytes.readUIntBE(0, bytes.length);
}

export function bigEndian(value: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  out.writeUIntBE(value, 0, length);
  return out;
}

/** Now in Unix seconds, as a node's `t` attribute. */
export function unixNow(): string {
  return String(Math.floor(Date.now() / 1000));
}
