import { randomBytes } from 'node:crypto';

/** Default lifetime of an entry (design.md, Lifetime and isolation). */
export const DEFAULT_TTL_SECONDS = 3600;

export type EntryKind = 'text' | 'binary';

/** How the observation's `result` became the content, so a `{{stepN.result}}` reference gets it back as returned. */
export type ResultFormat = 'string' | 'base64' | 'json' | 'none';

/** What `put` stores: the entry plus what a reference needs to rebuild the observation. */
export interface NewEntry {
  /** The cycle that produced it. */
  turnId: string;
  step?: number | null;
  toolName?: string | null;
  /** Set for entries (archives) that later cycles of the same agent may read. */
  agentId?: string | null;
  kind: EntryKind;
  /** UTF-8 text, or raw bytes for `binary`. */
  content: string | Uint8Array;
  summary?: string | null;
  /** The observation's fields other than `result` (ok, error, path, url, ...). */
  metadata?: Record<string, unknown>;
  resultFormat?: ResultFormat;
  /** Seconds until it expires; `null` never expires. Defaults to {@link DEFAULT_TTL_SECONDS}. */
  ttlSeconds?: number | null;
}

/** An entry without its content. Times are epoch milliseconds. */
export interface EntryInfo {
  /** 16 hexadecimal characters. */
  id: string;
  turnId: string;
  step: number | null;
  toolName: string | null;
  agentId: string | null;
  kind: EntryKind;
  sizeBytes: number;
  summary: string | null;
  metadata: Record<string, unknown>;
  resultFormat: ResultFormat;
  createdAt: number;
  expiresAt: number | null;
}

/** The store of tool observations (design.md, Large observations); an expired entry reads as missing until `gc`. */
export interface ObservationStore {
  /** Stores an entry under a fresh id. */
  put(entry: NewEntry): Promise<EntryInfo>;
  /** The entry, or undefined when it does not exist or has expired. */
  info(id: string): Promise<EntryInfo | undefined>;
  /** The content of an entry returned by `info`: a string for `text`, a Buffer for `binary`. */
  content(entry: EntryInfo): Promise<string | Buffer | undefined>;
  /** The newest live entry a cycle stored for a step. */
  findStep(turnId: string, step: number): Promise<EntryInfo | undefined>;
  /** Live entries of a cycle, by step. */
  listForTurn(turnId: string): Promise<EntryInfo[]>;
  /** Deletes expired entries; returns how many. */
  gc(): Promise<number>;
  close(): Promise<void>;
}

/** Options every backend takes. */
export interface StoreOptions {
  /** Clock in epoch milliseconds; tests move it. */
  now?: () => number;
}

/** A fresh 16-hex entry id. */
export function newEntryId(): string {
  return randomBytes(8).toString('hex');
}

/** Size in bytes of content as stored. */
export function contentBytes(content: string | Uint8Array): number {
  return typeof content === 'string' ? Buffer.byteLength(content, 'utf-8') : content.byteLength;
}

/** The info `put` returns for a new entry. */
export function describeNewEntry(entry: NewEntry, id: string, now: number): EntryInfo {
  const ttl = entry.ttlSeconds === undefined ? DEFAULT_TTL_SECONDS : entry.ttlSeconds;
  if (ttl !== null && !(ttl > 0)) throw new Error(`ttlSeconds must be positive or null, got ${ttl}`);
  if ((entry.kind === 'text') !== (typeof entry.content === 'string')) {
    throw new Error(`a ${entry.kind} entry needs ${entry.kind === 'text' ? 'string' : 'byte'} content`);
  }
  return {
    id,
    turnId: entry.turnId,
    step: entry.step ?? null,
    toolName: entry.toolName ?? null,
    agentId: entry.agentId ?? null,
    kind: entry.kind,
    sizeBytes: contentBytes(entry.content),
    summary: entry.summary ?? null,
    metadata: entry.metadata ?? {},
    resultFormat: entry.resultFormat ?? (entry.kind === 'binary' ? 'base64' : 'string'),
    createdAt: now,
    expiresAt: ttl === null ? null : now + ttl * 1000,
  };
}

/** Whether an entry is still readable at `now`. */
export function isLive(entry: Pick<EntryInfo, 'expiresAt'>, now: number): boolean {
  return entry.expiresAt === null || entry.expiresAt > now;
}
