import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runToolCall } from '../../src/activities/tools';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { Observation } from '../../src/core/tools/observation';

let temporary: string;
let sandboxRoot: string;
let outside: string;
let options: ToolOptions;
let step = 0;

function run(name: string, args: Record<string, unknown>, overrides: Partial<ToolOptions> = {}): Promise<Observation> {
  return runToolCall({ cycleId: 'test', step: step++, name, args }, { ...options, ...overrides });
}

beforeEach(async () => {
  temporary = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-fs-')));
  sandboxRoot = path.join(temporary, 'sandbox');
  outside = path.join(temporary, 'outside');
  await fs.mkdir(sandboxRoot);
  await fs.mkdir(outside);
  options = { sandboxRoot, shellAllow: [], shellTimeoutMs: 1000, fetchAllowHosts: [], fetchMaxBytes: 1024 };
});

afterEach(async () => {
  await fs.rm(temporary, { recursive: true, force: true });
});

test('a directory swapped for a symlink while fs_write runs never lets a write out', async () => {
  await fs.mkdir(path.join(sandboxRoot, 'd'));
  // Another process swaps sandbox/d between a directory and a symlink to outside as fast as it can.
  const swapper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs');
       const d = ${JSON.stringify(path.join(sandboxRoot, 'd'))};
       for (;;) {
         try { fs.renameSync(d, d + '.real'); fs.symlinkSync(${JSON.stringify(outside)}, d); } catch {}
         try { fs.unlinkSync(d); fs.renameSync(d + '.real', d); } catch {}
       }`,
    ],
    { stdio: 'ignore' },
  );
  try {
    // Bounded: stops at the first escape (the former check-then-use code escaped within a few hundred tries).
    for (let attempt = 0; attempt < 1500 && (await fs.readdir(outside)).length === 0; attempt++) {
      await run('fs_write', { path: 'd/file.txt', content: `attempt ${attempt}` });
    }
  } finally {
    swapper.kill('SIGKILL');
  }
  expect(await fs.readdir(outside)).toEqual([]);
});

test('a file hard-linked to one outside is neither read nor overwritten', async () => {
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fs.link(path.join(outside, 'secret.txt'), path.join(sandboxRoot, 'linked.txt'));
  const message = /refused: linked\.txt has 2 hard links, and another one may be outside the sandbox/;
  expect(await run('fs_read', { path: 'linked.txt' })).toEqual({ ok: false, error: expect.stringMatching(message) });
  expect(await run('fs_write', { path: 'linked.txt', content: 'pwned' })).toEqual({
    ok: false,
    error: expect.stringMatching(message),
  });
  expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf-8')).toBe('secret');
});

test('a FIFO is refused at once, for writing and reading, and does not starve other file operations', async () => {
  execFileSync('mkfifo', [path.join(sandboxRoot, 'pipe')]);
  const started = Date.now();
  const writes = await Promise.all(Array.from({ length: 6 }, () => run('fs_write', { path: 'pipe', content: 'x' })));
  for (const write of writes) expect(write).toEqual({ ok: false, error: expect.stringMatching(/pipe$/) });
  expect(writes[0]!.error).toMatch(/^not a regular file/);
  expect(await run('fs_read', { path: 'pipe' })).toEqual({ ok: false, error: 'not a regular file: pipe' });
  expect(await run('fs_write', { path: 'after.txt', content: 'fine' })).toMatchObject({ ok: true });
  expect(Date.now() - started).toBeLessThan(2_000);
}, 10_000);

test('a write over the cap is refused before anything is written', async () => {
  const content = 'x'.repeat(100 * 1024 * 1024);
  expect(await run('fs_write', { path: 'big.txt', content })).toEqual({
    ok: false,
    error: `content is ${content.length} bytes; fs_write writes at most ${10 * 1024 * 1024}: nothing written`,
  });
  expect(await run('fs_write', { path: 'small.txt', content: 'x'.repeat(20) }, { fsWriteMaxBytes: 10 })).toMatchObject({
    ok: false,
    error: expect.stringMatching(/^content is 20 bytes; fs_write writes at most 10/),
  });
  expect(await fs.readdir(sandboxRoot)).toEqual([]);
});

test('errors name paths relative to the sandbox, never the host path', async () => {
  const longName = `${'n'.repeat(300)}/file.txt`;
  const deep = `${'d/'.repeat(2100)}file.txt`;
  const observations = [
    await run('fs_write', { path: longName, content: 'x' }),
    await run('fs_read', { path: longName }),
    await run('fs_write', { path: deep, content: 'x' }),
    await run('fs_read', { path: 'missing/file.txt' }),
  ];
  for (const observation of observations) {
    expect(observation.ok).toBe(false);
    expect(observation.error).not.toContain(temporary);
    expect(observation.error).not.toContain('/proc/self');
  }
  expect(observations[0]!.error).toBe(`a name in this path is too long: ${longName}`);
  expect(observations[2]!.error).toBe('path is 4208 characters; at most 4096 are allowed');
  expect(observations[3]!.error).toBe('no such file: missing/file.txt');
});

test('a symlink inside the sandbox is followed, through directories and by absolute path', async () => {
  await run('fs_write', { path: 'real/file.txt', content: 'inside' });
  await fs.symlink('real', path.join(sandboxRoot, 'relative'));
  await fs.symlink(path.join(sandboxRoot, 'real', 'file.txt'), path.join(sandboxRoot, 'absolute'));
  await fs.symlink('../real/file.txt', path.join(sandboxRoot, 'real', 'up'));
  expect(await run('fs_read', { path: 'relative/file.txt' })).toMatchObject({ ok: true, result: 'inside' });
  expect(await run('fs_read', { path: 'absolute' })).toMatchObject({ ok: true, result: 'inside' });
  expect(await run('fs_read', { path: 'relative/up' })).toMatchObject({ ok: true, result: 'inside' });
  await fs.symlink('../../outside', path.join(sandboxRoot, 'real', 'out'));
  expect((await run('fs_write', { path: 'real/out/x', content: 'x' })).error).toMatch(/through a symlink/);
  await fs.symlink('loop', path.join(sandboxRoot, 'loop'));
  expect((await run('fs_read', { path: 'loop' })).error).toBe('too many symlinks: loop');
  expect(await fs.readdir(outside)).toEqual([]);
});
