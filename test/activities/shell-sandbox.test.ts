import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runToolCall } from '../../src/activities/tools';
import { confinementUnavailable, runConfined } from '../../src/activities/tools/confined';
import { CONFINED_LIMITS } from '../../src/activities/tools/confined-args';
import type { ToolOptions } from '../../src/activities/tools/types';
import type { Observation } from '../../src/core/tools/observation';

let temporary: string;
let sandboxRoot: string;
let options: ToolOptions;
let step = 0;

function run(command: string, overrides: Partial<ToolOptions> = {}): Promise<Observation> {
  return runToolCall({ cycleId: 'test', step: step++, name: 'shell', args: { command } }, { ...options, ...overrides });
}

function output(observation: Observation): string {
  const result = observation.result as { stdout: string; stderr: string };
  return `${result.stdout}${result.stderr}`;
}

beforeEach(async () => {
  temporary = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-shell-')));
  sandboxRoot = path.join(temporary, 'sandbox');
  await fs.mkdir(sandboxRoot);
  await fs.writeFile(path.join(temporary, '.env'), 'ANTHROPIC_API_KEY=sk-secret-outside\n');
  options = {
    sandboxRoot,
    shellAllow: ['date', 'cat', 'ls', 'sh', 'node', 'touch'],
    shellTimeoutMs: 10_000,
    fetchAllowHosts: [],
    fetchMaxBytes: 1024,
  };
});

afterEach(async () => {
  await fs.rm(temporary, { recursive: true, force: true });
});

describe('shell runs inside bubblewrap', () => {
  test('date -f cannot read /etc/passwd', async () => {
    const observation = await run('date -f/etc/passwd');
    expect(observation.ok).toBe(false);
    expect(output(observation)).not.toMatch(/root:/);
  });

  test('date -f cannot read a file beside the sandbox', async () => {
    const observation = await run(`date -f${sandboxRoot}/../.env`);
    expect(observation.ok).toBe(false);
    expect(output(observation)).not.toMatch(/sk-secret-outside/);
  });

  test('cat does not follow a symlink out of the sandbox', async () => {
    await fs.symlink(path.join(temporary, '.env'), path.join(sandboxRoot, 'link'));
    const observation = await run('cat link');
    expect(observation.ok).toBe(false);
    expect(output(observation)).not.toMatch(/sk-secret-outside/);
  });

  test('writes land in the sandbox and nowhere else', async () => {
    const observation = await run(`sh -c 'echo made > inside.txt; touch /usr/x ../escape; echo "touch $?"'`);
    expect((observation.result as { stdout: string }).stdout).toBe('touch 1\n');
    expect(await fs.readFile(path.join(sandboxRoot, 'inside.txt'), 'utf-8')).toBe('made\n');
    expect(await fs.readdir(temporary)).toEqual(['.env', 'sandbox']);
  });

  test('has no network, not even the host loopback', async () => {
    const server = http.createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const script = `fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => console.log('blocked', e.cause?.code))`;
      const observation = await run(`node -e "${script}"`);
      expect(output(observation)).toMatch(/blocked ECONNREFUSED/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('sets limits on processes, memory, CPU time and file size', async () => {
    const limits = (await run('cat /proc/self/limits')).result as { stdout: string };
    const soft = (name: string): number => Number(new RegExp(`^${name}\\s+(\\d+)`, 'm').exec(limits.stdout)?.[1]);
    expect(soft('Max processes')).toBe(CONFINED_LIMITS.processes);
    expect(soft('Max data size')).toBe(CONFINED_LIMITS.memoryBytes);
    expect(soft('Max cpu time')).toBe(11);
    expect(soft('Max file size')).toBe(CONFINED_LIMITS.fileBytes);
  });

  test('a process cannot allocate past the memory limit', async () => {
    const observation = await run(`node -e "Buffer.alloc(${CONFINED_LIMITS.memoryBytes + 1024 ** 3}, 1)"`);
    expect(observation.ok).toBe(false);
  });

  // The kernel exempts uid 0 from the process cap: a root worker's sandbox (root's directory, as by default) must
  // still stop there. The shell records each fork it made; the first refused one ends it.
  test('a fork loop stops at the process cap, even for a root worker in a directory of root', async () => {
    const loop = 'i=0; while [ $i -lt 600 ]; do sleep 5 & i=$((i+1)); echo $i > forks; done';
    const observation = await run(`sh -c '${loop}'`);
    expect(output(observation)).toMatch(/Cannot fork|Resource temporarily unavailable/);
    const forks = Number(await fs.readFile(path.join(sandboxRoot, 'forks'), 'utf-8'));
    expect(forks).toBeLessThan(CONFINED_LIMITS.processes);
    expect(forks).toBeGreaterThan(CONFINED_LIMITS.processes / 2);
  });

  test('runs as no host root: no capabilities, no_new_privs, a nosuid sandbox, files owned by the sandbox user', async () => {
    const script = 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; grep " $PWD " /proc/self/mountinfo; touch made';
    const text = output(await run(`sh -c '${script}'`));
    expect(text).toMatch(/CapEff:\s+0+\n/);
    expect(text).toMatch(/NoNewPrivs:\s+1/);
    expect(text).toMatch(/ rw,nosuid,/);
    const owner = (await fs.stat(path.join(sandboxRoot, 'made'))).uid;
    expect(owner).not.toBe(0);
    if (process.getuid?.() === 0) expect(owner).toBe(65534);
  });

  test('a setuid or setgid file the program makes loses the bit before the call returns', async () => {
    const observation = await run(
      `sh -c 'cp /usr/bin/find suidfind; chmod 6755 suidfind; mkdir shared; chmod 2775 shared'`,
    );
    expect(observation).toMatchObject({ ok: true, result: { setuid_bits_cleared: ['shared', 'suidfind'] } });
    expect((await fs.stat(path.join(sandboxRoot, 'suidfind'))).mode & 0o7777).toBe(0o755);
    expect((await fs.stat(path.join(sandboxRoot, 'shared'))).mode & 0o7777).toBe(0o775);
  });
});

test("files fs_write creates stay writable by the sandbox user, though the directory was root's", async () => {
  const write = { cycleId: 'test', step: step++, name: 'fs_write', args: { path: 'notes/a.txt', content: 'one\n' } };
  expect(await runToolCall(write, options)).toMatchObject({ ok: true });
  expect(await run(`sh -c 'id -u; echo two >> notes/a.txt; touch notes/b.txt'`)).toMatchObject({ ok: true });
  expect(await fs.readFile(path.join(sandboxRoot, 'notes', 'a.txt'), 'utf-8')).toBe('one\ntwo\n');
});

describe('when bubblewrap cannot start', () => {
  const saved = process.env.SCRATCHPAD_BWRAP_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.SCRATCHPAD_BWRAP_PATH;
    else process.env.SCRATCHPAD_BWRAP_PATH = saved;
  });

  test('shell refuses and says why and how to enable it', async () => {
    process.env.SCRATCHPAD_BWRAP_PATH = path.join(temporary, 'no-bwrap');
    expect(await confinementUnavailable()).toMatch(/bubblewrap was not found at SCRATCHPAD_BWRAP_PATH=/);
    const observation = await run('date');
    expect(observation).toEqual({
      ok: false,
      error:
        'shell is disabled: it runs only inside a bubblewrap sandbox, and bubblewrap was not found at ' +
        `SCRATCHPAD_BWRAP_PATH=${temporary}/no-bwrap; install it (Debian/Ubuntu: apt-get install bubblewrap) ` +
        'and point SCRATCHPAD_BWRAP_PATH at bwrap, or unset it. An operator who accepts a weaker guard ' +
        '(arguments checked, no OS sandbox) may set SCRATCHPAD_SHELL_UNCONFINED=true.',
    });
    await expect(runConfined({ root: sandboxRoot, argv: ['true'], timeoutMs: 1000 })).rejects.toThrow(
      /bubblewrap was not found/,
    );
  });

  test('an operator may opt in to the argument guard alone', async () => {
    process.env.SCRATCHPAD_BWRAP_PATH = path.join(temporary, 'no-bwrap');
    expect(await run('date -f/etc/passwd', { shellUnconfined: true })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/absolute paths are not allowed in arguments/),
    });
    expect(await run('ls', { shellUnconfined: true })).toMatchObject({ ok: true });
  });
});

describe('runConfined', () => {
  test('runs a command line through sh, with the given environment, and reports the exit code', async () => {
    const result = await runConfined({
      root: sandboxRoot,
      argv: ['sh', '-c', 'echo "$GREETING from $(pwd)"; echo oops >&2; exit 3'],
      env: { GREETING: 'hello' },
      timeoutMs: 5_000,
    });
    expect(result).toEqual({
      exitCode: 3,
      signal: null,
      stdout: `hello from ${sandboxRoot}\n`,
      stderr: 'oops\n',
      timedOut: false,
      truncated: false,
      cleared: [],
    });
  });

  test('reaches the network only when allowed', async () => {
    const server = http.createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const script = `fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(console.log, e => console.log(e.cause?.code))`;
    try {
      const closed = await runConfined({ root: sandboxRoot, argv: ['node', '-e', script], timeoutMs: 10_000 });
      expect(closed.stdout).toBe('ECONNREFUSED\n');
      const open = { root: sandboxRoot, argv: ['node', '-e', script], timeoutMs: 10_000, allowNetwork: true };
      expect((await runConfined(open)).stdout).toBe('reached\n');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('caps output, and a timeout or an abort kills every process it started', async () => {
    const capped = await runConfined({
      root: sandboxRoot,
      argv: ['sh', '-c', 'head -c 5000 /dev/zero'],
      timeoutMs: 5_000,
      maxOutputBytes: 100,
    });
    expect(capped).toMatchObject({ stdout: '\0'.repeat(100), truncated: true });
    const started = Date.now();
    const timed = await runConfined({ root: sandboxRoot, argv: ['sh', '-c', 'sleep 30 & sleep 30'], timeoutMs: 300 });
    expect(timed.timedOut).toBe(true);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const aborted = await runConfined({
      root: sandboxRoot,
      argv: ['sleep', '30'],
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    expect(aborted.exitCode).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
