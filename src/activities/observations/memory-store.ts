import {
  type EntryInfo,
  type NewEntry,
  type ObservationStore,
  type StoreOptions,
  describeNewEntry,
  isLive,
  newEntryId,
} from './entry';

/** A store in this process's memory: for tests and tools run without a configured store; one worker process only. */
export class MemoryObservationStore implements ObservationStore {
  private readonly entries = new Map<string, { info: EntryInfo; content: string | Buffer }>();
  private readonly now: () => number;

  constructor(options: StoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async put(entry: NewEntry): Promise<EntryInfo> {
    const info = describeNewEntry(entry, newEntryId(), this.now());
    const content = typeof entry.content === 'string' ? entry.content : Buffer.from(entry.content);
    this.entries.set(info.id, { info, content });
    return info;
  }

  async info(id: string): Promise<EntryInfo | undefined> {
    const stored = this.entries.get(id);
    return stored && isLive(stored.info, this.now()) ? stored.info : undefined;
  }

  async content(entry: EntryInfo): Promise<string | Buffer | undefined> {
    return this.entries.get(entry.id)?.content;
  }

  async findStep(turnId: string, step: number): Promise<EntryInfo | undefined> {
    return (await this.listForTurn(turnId)).filter((entry) => entry.step === step).at(-1);
  }

  async listForTurn(turnId: string): Promise<EntryInfo[]> {
    const now = this.now();
    return [...this.entries.values()]
      .map((stored) => stored.info)
      .filter((info) => info.turnId === turnId && isLive(info, now))
      .sort((a, b) => (a.step ?? -1) - (b.step ?? -1) || a.createdAt - b.createdAt);
  }

  async gc(): Promise<number> {
    const now = this.now();
    let removed = 0;
    for (const [id, stored] of this.entries) {
      if (!isLive(stored.info, now)) removed += Number(this.entries.delete(id));
    }
    return removed;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
