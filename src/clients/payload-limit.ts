import { SERVER_PAYLOAD_LIMIT_BYTES } from '../core/payload';

// What server 1.29 answers (common/util.go, ErrBlobSizeExceedsLimit), with gRPC's INVALID_ARGUMENT.
const BLOB_REFUSAL = /Blob data size exceeds limit/;
const GRPC_INVALID_ARGUMENT = 3;

/** True when `error`, or one of its causes, is the server refusing a payload over its size limit. */
export function isPayloadLimitRefusal(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; depth++) {
    const { code, details } = cause as { code?: unknown; details?: unknown };
    if (code === GRPC_INVALID_ARGUMENT && typeof details === 'string' && BLOB_REFUSAL.test(details)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** One line for a payload the server refused: what was refused, the limit that refused it, and what to do. */
export function payloadLimitMessage(what: string, advice = 'send less'): string {
  return (
    `${what} was refused by the Temporal server: its payload is over the server's size limit ` +
    `(limit.blobSize.error: ${SERVER_PAYLOAD_LIMIT_BYTES} bytes on the dev server and cluster this project starts); ` +
    advice
  );
}

/** Runs `send`; the server's payload refusal becomes a RangeError with {@link payloadLimitMessage}. */
export async function refusingOversize<T>(what: string, advice: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (isPayloadLimitRefusal(error)) throw new RangeError(payloadLimitMessage(what, advice), { cause: error });
    throw error;
  }
}
