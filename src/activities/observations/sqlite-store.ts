import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { EntryInfo, EntryKind, NewEntry, ObservationStore, ResultFormat, StoreOptions } from './entry';
import { describeNewEntry, newEntryId } from './entry';

// One row per entry; expires_at is NULL for entries that never expire, and the last three columns let a
// `{{stepN.field}}` reference rebuild the observation the tool returned.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  id TEXT PRIMARY KEY,
  turn_id TEXT NOT NULL,
  step_num INTEGER,
  executor_name TEXT,
  content_kind TEXT NOT NULL,
  content BLOB NOT NULL,
  size_bytes INTEGER NOT NULL,
  summary TEXT,
  created_at REAL NOT NULL,
  expires_at REAL,
  agent_id TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  result_format TEXT NOT NULL DEFAULT 'string'
);
CREATE INDEX IF NOT EXISTS entries_turn ON entries (turn_id, step_num);
CREATE INDEX IF NOT EXISTS entries_expires ON entries (expires_at);
`;

const INFO_COLUMNS =
  'id, turn_id, step_num, executor_name, content_kind, size_bytes, summary, created_at, expires_at, agent_id, metadata, result_format';
const LIVE = '(expires_at IS NULL OR expires_at > @now)';

interface Row {
  id: string;
  turn_id: string;
  step_num: number | null;
  executor_name: string | null;
  content_kind: EntryKind;
  size_bytes: number;
  summary: string | null;
  created_at: number;
  expires_at: number | null;
  agent_id: string | null;
  metadata: string;
  result_format: ResultFormat;
}

function toInfo(row: Row): EntryInfo {
  return {
    id: row.id,
    turnId: row.turn_id,
    step: row.step_num,
    toolName: row.executor_name,
    agentId: row.agent_id,
    kind: row.content_kind,
    sizeBytes: row.size_bytes,
    summary: row.summary,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    resultFormat: row.result_format,
    createdAt: Math.round(row.created_at * 1000),
    expiresAt: row.expires_at === null ? null : Math.round(row.expires_at * 1000),
  };
}

/** The embedded backend: one SQLite file, text stored as TEXT and bytes as BLOB. */
export class SqliteObservationStore implements ObservationStore {
  private readonly db: Database.Database;
  private readonly now: () => number;

  /** The database file as given (`:memory:` for one in this process). */
  constructor(
    readonly file: string,
    options: StoreOptions = {},
  ) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new Database(file);
    // WAL: readers on other worker processes of this host do not block the writer.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.now = options.now ?? Date.now;
  }

  async put(entry: NewEntry): Promise<EntryInfo> {
    const info = describeNewEntry(entry, newEntryId(), this.now());
    const content = typeof entry.content === 'string' ? entry.content : Buffer.from(entry.content);
    this.db
      .prepare(
        `INSERT INTO entries (${INFO_COLUMNS}, content) VALUES (@id, @turn_id, @step_num, @executor_name, @content_kind,
         @size_bytes, @summary, @created_at, @expires_at, @agent_id, @metadata, @result_format, @content)`,
      )
      .run({
        id: info.id,
        turn_id: info.turnId,
        step_num: info.step,
        executor_name: info.toolName,
        content_kind: info.kind,
        size_bytes: info.sizeBytes,
        summary: info.summary,
        created_at: info.createdAt / 1000,
        expires_at: info.expiresAt === null ? null : info.expiresAt / 1000,
        agent_id: info.agentId,
        metadata: JSON.stringify(info.metadata),
        result_format: info.resultFormat,
        content,
      });
    return info;
  }

  async info(id: string): Promise<EntryInfo | undefined> {
    const row = this.db
      .prepare(`SELECT ${INFO_COLUMNS} FROM entries WHERE id = @id AND ${LIVE}`)
      .get({ id, now: this.seconds() }) as Row | undefined;
    return row && toInfo(row);
  }

  async content(entry: EntryInfo): Promise<string | Buffer | undefined> {
    const row = this.db.prepare('SELECT content FROM entries WHERE id = ?').get(entry.id) as
      { content: string | Buffer } | undefined;
    return row?.content;
  }

  async findStep(turnId: string, step: number): Promise<EntryInfo | undefined> {
    const row = this.db
      .prepare(
        `SELECT ${INFO_COLUMNS} FROM entries WHERE turn_id = @turnId AND step_num = @step AND ${LIVE}
         ORDER BY created_at DESC, rowid DESC LIMIT 1`,
      )
      .get({ turnId, step, now: this.seconds() }) as Row | undefined;
    return row && toInfo(row);
  }

  async listForTurn(turnId: string): Promise<EntryInfo[]> {
    const rows = this.db
      .prepare(`SELECT ${INFO_COLUMNS} FROM entries WHERE turn_id = @turnId AND ${LIVE} ORDER BY step_num, created_at`)
      .all({ turnId, now: this.seconds() }) as Row[];
    return rows.map(toInfo);
  }

  async gc(): Promise<number> {
    return this.db.prepare('DELETE FROM entries WHERE expires_at <= ?').run(this.seconds()).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private seconds(): number {
    return this.now() / 1000;
  }
}
