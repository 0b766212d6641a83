import { type DataConverter, METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { decode, encode } from '@temporalio/common/lib/encoding';
import { temporal } from '@temporalio/proto';

/** One AES-256-GCM key and the id payloads it encrypted carry, so a rotated-out key still decrypts them. */
export interface EncryptionKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
const IV_BYTES = 12;
// Node's WebCrypto types; the project compiles without the DOM library.
type CryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

function cryptoKey(key: Uint8Array): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/**
 * Encrypts every payload whole (metadata and data, so not even its encoding shows) with AES-GCM under the first
 * key, and decrypts with whichever key the payload's key id names. WebCrypto only: client, worker and the codec
 * server share it.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Promise<CryptoKey>>;
  private readonly encryptingId: string;

  constructor(keys: readonly EncryptionKey[]) {
    const first = keys[0];
    if (!first) throw new Error('an encryption codec needs at least one key');
    this.encryptingId = first.id;
    this.keys = new Map(keys.map(({ id, key }) => [id, cryptoKey(key)]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = await (this.keys.get(this.encryptingId) as Promise<CryptoKey>);
    return Promise.all(
      payloads.map(async (payload) => {
        const plain = temporal.api.common.v1.Payload.encode(payload).finish();
        const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
        const cipher = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
        const data = new Uint8Array(IV_BYTES + cipher.length);
        data.set(iv);
        data.set(cipher, IV_BYTES);
        return {
          metadata: {
            [METADATA_ENCODING_KEY]: encode(ENCRYPTED_ENCODING),
            [METADATA_KEY_ID]: encode(this.encryptingId),
          },
          data,
        };
      }),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
        // Written before encryption was switched on: still readable.
        if (!encoding || decode(encoding) !== ENCRYPTED_ENCODING) return payload;
        const idBytes = payload.metadata?.[METADATA_KEY_ID];
        const id = idBytes ? decode(idBytes) : '';
        const key = this.keys.get(id);
        if (!key) throw new Error(`payload encrypted with key "${id}", which is not configured`);
        const data = payload.data ?? new Uint8Array();
        const iv = data.subarray(0, IV_BYTES);
        const plain = await globalThis.crypto.subtle.decrypt(
          { name: 'AES-GCM', iv },
          await key,
          data.subarray(IV_BYTES),
        );
        return temporal.api.common.v1.Payload.decode(new Uint8Array(plain));
      }),
    );
  }
}

/** The data converter for client and worker: encryption when keys are configured, Temporal's default otherwise. */
export function encryptionDataConverter(keys: readonly EncryptionKey[]): DataConverter {
  return keys.length === 0 ? {} : { payloadCodecs: [new EncryptionCodec(keys)] };
}
