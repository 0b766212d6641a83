import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withFileLock } from '../../src/dev-server/file-lock';

describe('withFileLock', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), 'file-lock-'));
  });
  afterAll(() => fs.rm(directory, { recursive: true, force: true }));

  test('runs holders one at a time and releases the lock', async () => {
    const lockPath = path.join(directory, 'serial.lock');
    const events: string[] = [];
    const hold = (name: string) =>
      withFileLock(
        lockPath,
        () => undefined,
        async () => {
          events.push(`${name} in`);
          await sleep(50);
          events.push(`${name} out`);
        },
      );
    await Promise.all([hold('a'), hold('b')]);
    const [first, second] = events[0] === 'a in' ? ['a', 'b'] : ['b', 'a'];
    expect(events).toEqual([`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
    await expect(fs.access(lockPath)).rejects.toThrow();
  });

  test('takes over a lock whose holder is dead', async () => {
    const lockPath = path.join(directory, 'stale.lock');
    await fs.writeFile(lockPath, '999999999\n');
    const lines: string[] = [];
    await expect(
      withFileLock(
        lockPath,
        (line) => lines.push(line),
        async () => 'done',
      ),
    ).resolves.toBe('done');
    expect(lines.join('\n')).toMatch(/stale lock .* pid 999999999/);
  });
});
