/**
 * Limits count characters as people do: by Unicode code point, so an emoji is one character (not two UTF-16
 * units) and a cut never leaves half of a surrogate pair.
 */

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Length of `text` in code points. */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let index = 0; index < text.length - 1; index++) {
    if (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1))) {
      pairs++;
      index++;
    }
  }
  return text.length - pairs;
}

/** UTF-16 offset just after the first `points` code points of `text`. */
function offsetAfter(text: string, points: number): number {
  let offset = 0;
  for (let seen = 0; seen < points && offset < text.length; seen++) {
    const pair = isHighSurrogate(text.charCodeAt(offset)) && isLowSurrogate(text.charCodeAt(offset + 1));
    offset += pair ? 2 : 1;
  }
  return offset;
}

/** UTF-16 offset where the last `points` code points of `text` begin. */
function offsetBefore(text: string, points: number): number {
  let offset = text.length;
  for (let seen = 0; seen < points && offset > 0; seen++) {
    const pair = isLowSurrogate(text.charCodeAt(offset - 1)) && isHighSurrogate(text.charCodeAt(offset - 2));
    offset -= pair ? 2 : 1;
  }
  return offset;
}

/** The first `points` code points of `text`. */
export function headCodePoints(text: string, points: number): string {
  return text.slice(0, offsetAfter(text, Math.max(0, points)));
}

/** The last `points` code points of `text`. */
export function tailCodePoints(text: string, points: number): string {
  return text.slice(offsetBefore(text, Math.max(0, points)));
}

/** A UTF-16 code unit outside ASCII (surrogates included). */
const NON_ASCII = /[\u0080-\uffff]/;

/** Bytes of `text` in UTF-8, without Node's `Buffer` (core runs in the workflow sandbox too). */
export function utf8Length(text: string): number {
  // Most text is ASCII, one byte a character: a native scan finds that, where the loop reads characters one by one.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}
