import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import { loadConfig } from '../../../src/config';
import { ENCRYPTED_ENCODING, EncryptionCodec, METADATA_KEY_ID } from '../../../src/common/encryption-codec';

const key = (id: string) => ({ id, key: new Uint8Array(randomBytes(32)) });
const secret = { notes: 'the launch code is 0000' };

function text(payload: Payload, field: string): string {
  return decode(payload.metadata?.[field] as Uint8Array);
}

describe('EncryptionCodec', () => {
  it('encrypts the whole payload under the first key, names the key, and decrypts it back', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const plain = defaultPayloadConverter.toPayload(secret);
    const [encrypted] = await codec.encode([plain]);
    expect(text(encrypted!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted!, METADATA_KEY_ID)).toBe('k1');
    expect(Buffer.from(encrypted!.data!).toString('latin1')).not.toContain('launch code');
    const [decoded] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(secret);
  });

  it('uses a fresh IV each time', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const plain = defaultPayloadConverter.toPayload(secret);
    const [a, b] = await codec.encode([plain, plain]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('rotates: a new first key encrypts, the old one still decrypts what it wrote', async () => {
    const old = key('2025');
    const written = await new EncryptionCodec([old]).encode([defaultPayloadConverter.toPayload(secret)]);
    const rotated = new EncryptionCodec([key('2026'), old]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(written))[0]!)).toEqual(secret);
    expect(text((await rotated.encode([defaultPayloadConverter.toPayload(1)]))[0]!, METADATA_KEY_ID)).toBe('2026');
  });

  it('refuses a payload whose key is unknown or whose ciphertext was altered', async () => {
    const [encrypted] = await new EncryptionCodec([key('gone')]).encode([defaultPayloadConverter.toPayload(secret)]);
    await expect(new EncryptionCodec([key('other')]).decode([encrypted!])).rejects.toThrow(/key "gone"/);
    const codec = new EncryptionCodec([key('k1')]);
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
    sealed!.data!.set([sealed!.data![20]! ^ 1], 20);
    await expect(codec.decode([sealed!])).rejects.toThrow();
  });

  it('passes payloads written before encryption through', async () => {
    const plain = defaultPayloadConverter.toPayload(secret);
    expect(await new EncryptionCodec([key('k1')]).decode([plain])).toEqual([plain]);
  });
});

describe('encryption keys in the configuration', () => {
  const base64 = () => randomBytes(32).toString('base64');

  it('reads one key (id "default" when none is given) and a rotation list, first key first', () => {
    const config = loadConfig({
      SCRATCHPAD_ENCRYPTION_KEY: base64(),
      SCRATCHPAD_ENCRYPTION_KEYS: `a:${base64()}, b:${base64()}`,
    });
    expect(config.encryptionKeys.map((entry) => entry.id)).toEqual(['default', 'a', 'b']);
    expect(config.encryptionKeys[0]?.key).toHaveLength(32);
    expect(loadConfig({}).encryptionKeys).toEqual([]);
  });

  it.each([
    ['a short key', { SCRATCHPAD_ENCRYPTION_KEY: 'k:c2hvcnQ=' }, /expected 32 bytes/],
    ['a bad id', { SCRATCHPAD_ENCRYPTION_KEYS: `bad id:${randomBytes(32).toString('base64')}` }, /the id must be/],
    [
      'two keys in the single-key variable',
      { SCRATCHPAD_ENCRYPTION_KEY: `a:${randomBytes(32).toString('base64')},b:${randomBytes(32).toString('base64')}` },
      /one key/,
    ],
    [
      'a repeated id',
      { SCRATCHPAD_ENCRYPTION_KEYS: `a:${randomBytes(32).toString('base64')},a:${randomBytes(32).toString('base64')}` },
      /twice/,
    ],
  ])('rejects %s without echoing the key', (_, env, message) => {
    let error: Error | undefined;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught as Error;
    }
    expect(error?.message).toMatch(message);
    for (const value of Object.values(env)) {
      for (const part of value.split(/[:,]/)) if (part.length > 20) expect(error?.message).not.toContain(part);
    }
  });
});
