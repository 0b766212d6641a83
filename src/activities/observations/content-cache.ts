import { TextView } from './text-view';

/** Decoded content of one entry: text with its indexes, or bytes. */
export type EntryContent = TextView | Buffer;

/** Default capacity: UTF-16 units of text plus bytes of binary content. */
export const DEFAULT_CACHE_UNITS = 64 * 1024 * 1024;

function sizeOf(content: EntryContent): number {
  return content instanceof TextView ? content.text.length : content.byteLength;
}

/**
 * A least-recently-used cache of decoded entries. Entries never change once stored, so a cached copy is
 * never stale; callers still ask the store whether the entry is live before using it.
 */
export class ContentCache {
  private readonly entries = new Map<string, EntryContent>();
  private units = 0;

  constructor(private readonly capacity = DEFAULT_CACHE_UNITS) {}

  get(id: string): EntryContent | undefined {
    const content = this.entries.get(id);
    if (content === undefined) return undefined;
    this.entries.delete(id);
    this.entries.set(id, content);
    return content;
  }

  /** Caches `content` (text is wrapped in a view) and returns what is cached. */
  set(id: string, content: string | Buffer | EntryContent): EntryContent {
    const value = typeof content === 'string' ? new TextView(content) : content;
    this.delete(id);
    if (sizeOf(value) > this.capacity) return value;
    this.entries.set(id, value);
    this.units += sizeOf(value);
    for (const [oldest, cached] of this.entries) {
      if (this.units <= this.capacity) break;
      this.entries.delete(oldest);
      this.units -= sizeOf(cached);
    }
    return value;
  }

  delete(id: string): void {
    const cached = this.entries.get(id);
    if (cached === undefined) return;
    this.entries.delete(id);
    this.units -= sizeOf(cached);
  }
}
