/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with every lone surrogate replaced by U+FFFD, as `String.prototype.toWellFormed` does
 * (ES2024, not in our TypeScript lib yet). A WhatsApp contact controls what its phone puts in a
 * file name or caption; a lone surrogate there cannot be encoded as UTF-8 (`encodeURIComponent`
 * throws, `Buffer.from` silently changes it), so it is replaced once, where the message comes in.
 */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
