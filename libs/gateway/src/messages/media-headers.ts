/** A MIME type with optional parameters (`audio/ogg; codecs=opus`), as a sender's phone states it. */
const MIME_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}(\s*;\s*[a-z0-9_.+-]{1,64}=("[^"\\\r\n]{0,128}"|[a-z0-9_.+-]{1,128})){0,8}$/i;

/** The sender's MIME type when it is well-formed, else `application/octet-stream`. */
export function safeContentType(mimetype: string): string {
  return MIME_TYPE.test(mimetype.trim()) ? mimetype.trim() : 'application/octet-stream';
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'application/pdf': 'pdf',
};

/**
 * `attachment` with the sender's file name (documents), else `<messageId>.<extension>`: an ASCII
 * `filename` for old clients and the exact name as RFC 5987 `filename*`. Quotes, backslashes,
 * control characters and path separators never reach the header.
 */
export function contentDisposition(fileName: string | null, messageId: string, contentType: string): string {
  const base = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  const name =
    withoutUnsafeCharacters(fileName ?? '')
      .trim()
      .slice(0, 255) || `${messageId.replace(/[^A-Za-z0-9_.-]/g, '_')}.${extensionOf(base)}`;
  const ascii = name.replace(/[^\x20-\x7e]|["%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

function extensionOf(mimetype: string): string {
  const known = EXTENSIONS[mimetype];
  if (known) return known;
  const subtype = mimetype.split('/')[1] ?? '';
  return /^[a-z0-9]{1,10}$/.test(subtype) ? subtype : 'bin';
}

function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Control characters and path separators become `_`. */
function withoutUnsafeCharacters(value: string): string {
  return [...value]
    .map((c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' || c === '/' || c === '\\' ? '_' : c))
    .join('');
}
