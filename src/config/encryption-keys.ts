import { z } from 'zod';
import type { EncryptionKey } from '../common/encryption-codec';

/** `ID:BASE64` (or a bare `BASE64`, id "default") entries, comma-separated; each key 32 bytes, ids unique. */
export const keyList = z.string().transform((value, context): EncryptionKey[] => {
  const keys: EncryptionKey[] = [];
  for (const [index, item] of value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .entries()) {
    const colon = item.indexOf(':');
    const id = colon < 0 ? 'default' : item.slice(0, colon);
    const encoded = colon < 0 ? item : item.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    const problem = !/^[\w.-]{1,64}$/.test(id)
      ? `key ${index + 1}: the id must be 1-64 letters, digits, "_", "." or "-"`
      : !/^[A-Za-z0-9+/]+=*$/.test(encoded) || key.length !== 32
        ? `key ${index + 1} ("${id}"): expected 32 bytes in base64 (openssl rand -base64 32), got ${key.length} bytes`
        : keys.some((known) => known.id === id)
          ? `key id "${id}" appears twice`
          : undefined;
    if (problem) {
      // The key itself is never echoed into an error message.
      context.addIssue({ code: 'custom', message: problem, input: '<redacted>' });
      return z.NEVER;
    }
    keys.push({ id, key: new Uint8Array(key) });
  }
  return keys;
});
