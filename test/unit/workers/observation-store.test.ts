import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryObservationStore } from '../../../src/activities/observations/memory-store';
import { SqliteObservationStore } from '../../../src/activities/observations/sqlite-store';
import type { ObservationStore } from '../../../src/activities/observations/entry';
import { chosenObservationStore, localStoreLine, localStoreOf } from '../../../src/workers/observation-store';
import { ScratchpadPlugin } from '../../../src/workers/plugin';

const toolLimits = {
  sandboxRoot: os.tmpdir(),
  shellAllow: [],
  shellTimeoutMs: 1000,
  fetchAllowHosts: [],
  fetchMaxBytes: 1,
};
/** The folders this file made, removed after it. */
const made: string[] = [];
function folder(): string {
  const created = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-store-'));
  made.push(created);
  return created;
}

afterAll(() => {
  for (const created of made) fs.rmSync(created, { recursive: true, force: true });
});

function sqliteFile(store: ObservationStore): string {
  expect(store).toBeInstanceOf(SqliteObservationStore);
  return (store as SqliteObservationStore).file;
}

describe("the plugin's observation store", () => {
  it("is by default the CLI worker's: the data directory's SQLite file, or SCRATCHPAD_OBSERVATIONS", () => {
    const home = folder();
    expect(sqliteFile(chosenObservationStore(undefined, { SCRATCHPAD_HOME: home }))).toBe(
      path.join(home, 'observations.db'),
    );
    expect(fs.existsSync(path.join(home, 'observations.db'))).toBe(true);
    const named = path.join(folder(), 'named.db');
    expect(
      sqliteFile(chosenObservationStore(undefined, { SCRATCHPAD_HOME: home, SCRATCHPAD_OBSERVATIONS: named })),
    ).toBe(named);
  });

  it('is the one a spec or a store names', () => {
    const file = path.join(folder(), 'chosen.db');
    expect(sqliteFile(chosenObservationStore(`sqlite:${file}`, {}))).toBe(file);
    expect(sqliteFile(chosenObservationStore(file, {}))).toBe(file);
    const store = new MemoryObservationStore();
    expect(chosenObservationStore(store)).toBe(store);
    expect(() => chosenObservationStore(' ')).toThrow(/empty spec/);
  });

  it('opens nothing when `activities.observations` gives the store', () => {
    const home = folder();
    const saved = process.env.SCRATCHPAD_HOME;
    process.env.SCRATCHPAD_HOME = home;
    try {
      new ScratchpadPlugin({ toolLimits, activities: { observations: new MemoryObservationStore() } });
      new ScratchpadPlugin({ toolLimits, observations: new MemoryObservationStore() });
      expect(fs.readdirSync(home)).toEqual([]);
      new ScratchpadPlugin({ toolLimits });
      expect(fs.readdirSync(home)).toContain('observations.db');
    } finally {
      if (saved === undefined) delete process.env.SCRATCHPAD_HOME;
      else process.env.SCRATCHPAD_HOME = saved;
    }
  });

  it('is local to the host (SQLite) or the process (memory); a store of the user is taken as shared', () => {
    const file = path.join(folder(), 'local.db');
    expect(localStoreOf(new SqliteObservationStore(file))).toEqual({
      where: `in the SQLite file ${file}`,
      sharedOnThisHost: true,
    });
    expect(localStoreOf(new MemoryObservationStore())).toEqual({ where: 'in process memory', sharedOnThisHost: false });
    const custom = Object.create(null) as ObservationStore;
    expect(localStoreOf(custom)).toBeUndefined();
    const line = localStoreLine('in process memory', 'agents', ['1@a', '2@b', '3@c', '4@d', '5@e', '6@f']);
    expect(line).toMatch(
      /^observation store: .* in process memory, which 6 other worker\(s\) polling task queue "agents"/,
    );
    expect(line).toContain('(1@a, 2@b, 3@c, 4@d, 5@e, …)');
    expect(line).toContain('SCRATCHPAD_OBSERVATIONS=redis://HOST:PORT');
  });
});
