/**
 * The text of `bytes` if they are valid UTF-8 without NUL bytes, else undefined. With `partial`, an incomplete
 * character at the end (a body cut at a byte cap) is dropped instead of making the whole thing binary.
 */
export function decodeUtf8(bytes: Uint8Array, partial = false): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: partial });
  } catch {
    return undefined;
  }
}
