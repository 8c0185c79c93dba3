import { wellFormedText } from '@jumbe/domain';

/** A MIME type with optional parameters (`audio/ogg; codecs=opus`), as a sender's phone states it. */
const MIME_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}(\s*;\s*[a-z0-9_.+-]{1,64}=("[^"\\\r\n]{0,128}"|[a-z0-9_.+-]{1,128})){0,8}$/i;

/**
 * Types a browser runs or renders as a document of our origin (markup, scripts, style sheets,
 * XML that may carry XSLT or SVG): a contact chooses the type its phone reports, so these are
 * served as opaque bytes. `attachment` and `nosniff` already stop most browsers; this stops the rest.
 */
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'application/xslt+xml',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'text/ecmascript',
  'application/ecmascript',
  'text/css',
  'application/x-shockwave-flash',
  'multipart/x-mixed-replace',
  'text/vnd.wap.wml',
]);

/** The sender's MIME type when it is well-formed and passive, else `application/octet-stream`. */
export function safeContentType(mimetype: string): string {
  const trimmed = mimetype.trim();
  if (!MIME_TYPE.test(trimmed)) return 'application/octet-stream';
  const base = baseType(trimmed);
  return ACTIVE_TYPES.has(base) || base.endsWith('+xml') || base.includes('script')
    ? 'application/octet-stream'
    : trimmed;
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

/** Longest file name put in the header, in characters (code points, never half a pair). */
const MAX_NAME_CHARACTERS = 255;

/**
 * `attachment` with the sender's file name (documents), else `<messageId>.<extension>`: an ASCII
 * `filename` for old clients and the exact name as RFC 5987 `filename*`. Quotes, backslashes,
 * control characters and path separators never reach the header, nor bidirectional controls (a
 * right-to-left override shows `report\u202Efdp.exe` as "reportexe.pdf"). Total: any string a
 * phone sends, lone surrogates included, gives a header.
 */
export function contentDisposition(fileName: string | null, messageId: string, contentType: string): string {
  const name =
    displayableFileName(fileName ?? '') ||
    `${messageId.replace(/[^A-Za-z0-9_.-]/g, '_')}.${extensionOf(baseType(contentType))}`;
  const ascii = name.replace(/[^\x20-\x7e]|["%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** Bidirectional overrides, embeddings, isolates and marks (U+061C, U+200E/F, U+202A–E, U+2066–9). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** The sender's name as it may be shown: well-formed, without controls, trimmed, at most 255 characters. */
export function displayableFileName(fileName: string): string {
  const cleaned = withoutUnsafeCharacters(wellFormedText(fileName).replace(BIDI_CONTROLS, '')).trim();
  return [...cleaned].slice(0, MAX_NAME_CHARACTERS).join('');
}

function baseType(contentType: string): string {
  return (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
}

function extensionOf(mimetype: string): string {
  const known = EXTENSIONS[mimetype];
  if (known) return known;
  const subtype = mimetype.split('/')[1] ?? '';
  return /^[a-z0-9]{1,10}$/.test(subtype) ? subtype : 'bin';
}

/** RFC 5987 `value-chars`; never throws (`encodeURIComponent` does on a lone surrogate). */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(wellFormedText(value)).replace(
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

/** The headers a stored media file is served with: a safe type, its length, a safe name, no caching. */
export function mediaResponseHeaders(
  info: { mimetype: string; fileName: string | null; size: number },
  messageId: string,
): Record<string, string> {
  const contentType = safeContentType(info.mimetype);
  return {
    'content-type': contentType,
    'content-length': String(info.size),
    'content-disposition': contentDisposition(info.fileName, messageId, contentType),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  };
}
