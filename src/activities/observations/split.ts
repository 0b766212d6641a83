import type { Observation } from '../../core/tools/observation';
import type { EntryInfo, EntryKind, ResultFormat } from './entry';

/** An observation as stored: its payload (`result`) as content, everything else as metadata. */
export interface SplitObservation {
  kind: EntryKind;
  content: string | Buffer;
  resultFormat: ResultFormat;
  /** Every field but `result`, `ok` included. */
  metadata: Record<string, unknown>;
}

/** Whether the tool says its string result is base64 of bytes (`fs_read` binary, `web_fetch` of non-text). */
function isBase64Result(observation: Observation): boolean {
  return observation.encoding === 'binary' || observation.encoding === 'base64';
}

/** Splits an observation for storing: text as text, base64 as bytes, any other result as JSON text. */
export function splitObservation(observation: Observation): SplitObservation {
  const { result, ...metadata } = observation;
  if (typeof result === 'string' && isBase64Result(observation)) {
    return { kind: 'binary', content: Buffer.from(result, 'base64'), resultFormat: 'base64', metadata };
  }
  if (typeof result === 'string') return { kind: 'text', content: result, resultFormat: 'string', metadata };
  if (result === undefined) return { kind: 'text', content: '', resultFormat: 'none', metadata };
  return { kind: 'text', content: JSON.stringify(result, null, 2), resultFormat: 'json', metadata };
}

/** The observation the tool returned, rebuilt from a stored entry and its content. */
export function rebuildObservation(entry: EntryInfo, content: string | Buffer): Observation {
  const base = { ok: true, ...entry.metadata } as Observation;
  const text = typeof content === 'string' ? content : content.toString('utf-8');
  switch (entry.resultFormat) {
    case 'none':
      return base;
    case 'base64':
      return { ...base, result: typeof content === 'string' ? content : content.toString('base64') };
    case 'json':
      return { ...base, result: JSON.parse(text) as unknown };
    case 'string':
      return { ...base, result: text };
  }
}
