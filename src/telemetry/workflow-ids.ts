// Workflow code (the sandbox). Span ids made in a workflow must not come from its Math.random: that is the workflow's
// seeded random, which uuid4() also draws from, and spans are made where a replay makes none (update validators,
// queries), so a replay would draw different tokens and tickets than the first run did. Ids here come from the run id
// and a count instead: the same spans get the same ids on replay, as long as no query or validator ran between.
import * as otel from '@opentelemetry/api';

interface IdGenerator {
  generateTraceId(): string;
  generateSpanId(): string;
}

/** 32 bits of FNV-1a over `text`, as 8 hex digits. */
function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Ids unique to the run: hashes of its id, a count and a word index. */
export function runIdGenerator(runId: string): IdGenerator {
  let count = 0;
  const id = (words: number) => {
    count++;
    let text = '';
    for (let word = 0; word < words; word++) text += fnv(`${runId}/${count}/${word}`);
    return text;
  };
  return { generateTraceId: () => id(4), generateSpanId: () => id(2) };
}

interface SdkProvider {
  _config?: { idGenerator?: IdGenerator };
  _tracers?: Map<string, { _idGenerator?: IdGenerator }>;
}

/**
 * Makes the workflow's tracer provider (Temporal's interceptors registered it for this workflow) and the tracers it
 * made already draw ids from `generator`. Reaches into the SDK's fields: they are stable through its 1.x line.
 */
export function useIdGenerator(generator: IdGenerator): void {
  const global = otel.trace.getTracerProvider() as otel.TracerProvider & { getDelegate?: () => otel.TracerProvider };
  const provider = (global.getDelegate?.() ?? global) as SdkProvider;
  if (provider._config) provider._config.idGenerator = generator;
  for (const tracer of provider._tracers?.values() ?? []) tracer._idGenerator = generator;
}
