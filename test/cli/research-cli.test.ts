import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js');
let home: string;

function scratchpad(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          SCRATCHPAD_HOME: home,
          TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS ?? '',
          SCRATCHPAD_TASK_QUEUE: `cli-research-${process.pid}`,
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

jest.setTimeout(120_000);

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-research-cli-'));
});

describe('scratchpad research', () => {
  it('demo: prints entries as they land, then the answer citing VERIFIED entries; board and list show the run', async () => {
    const demo = await scratchpad(['research', 'demo']);
    expect(demo.stderr).not.toMatch(/Error/);
    expect(demo.code).toBe(0);
    const lines = demo.stdout.split('\n');
    const runId = /research (demo-\S+) started/.exec(demo.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(lines.filter((line) => /^e\d+ VERIFIED /.test(line))).toHaveLength(4);
    expect(demo.stdout).toMatch(/ UNVERIFIED .*does not occur/);
    expect(demo.stdout).toMatch(/ TOMBSTONE .*\/dead/);
    const cited = /citing VERIFIED entries (.*):/.exec(demo.stdout)?.[1]?.split(', ') ?? [];
    const verified = lines.filter((line) => /^e\d+ VERIFIED /.test(line)).map((line) => line.split(' ')[0]);
    expect(cited.sort()).toEqual(verified.sort());
    expect(demo.stderr.match(/\/dead/g)).toHaveLength(1);
    // Scripted workers report token estimates at no cost: the roll-up is printed, not zero.
    expect(demo.stdout).toMatch(/Workers used [1-9]\d* input and [1-9]\d* output tokens, \$0\.0000\./);

    const board = await scratchpad(['research', 'board', runId as string, '--json']);
    expect(board.code).toBe(0);
    const entries = JSON.parse(board.stdout) as { type: string }[];
    expect(entries.filter((entry) => entry.type === 'SYNTHESIS')).toHaveLength(1);
    const list = await scratchpad(['research', 'list']);
    expect(list.stdout).toMatch(new RegExp(`research/${runId}\\tCOMPLETED\\tcomplete`));
  });

  it('refuses a bad --max-workers and an empty directive with usage errors', async () => {
    const bad = await scratchpad(['research', 'start', 'q', '--max-workers', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-workers');
    const empty = await scratchpad(['research', 'directive', 'some-run', '  ']);
    expect(empty.code).toBe(2);
  });
});
