import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runConfined } from '../../src/activities/tools/confined';
import { runVerification } from '../../src/activities/tools/verification';
import { recordStageWrite, sha256 } from '../../src/activities/tools/stage-files';
import { createObservationRuntime } from '../../src/activities/observations/runtime';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { runObservedTool } from '../../src/activities/tools/run-tool';

/** The sandboxes this file made, removed after it. */
const made: string[] = [];

function sandbox(): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-verify-')));
  made.push(folder);
  return folder;
}

afterAll(() => {
  for (const folder of made) fs.rmSync(folder, { recursive: true, force: true });
});

const request = { agentId: 'a', turnId: 'staged/a/1/repair-1', timeoutMs: 10_000 };

describe('runVerification (confined, seed 004)', () => {
  it('passes on exit 0 and runs in the sandbox as its working directory', async () => {
    const root = sandbox();
    fs.writeFileSync(path.join(root, 'ok.test.js'), "require('node:test')('t', () => {});\n");
    const result = await runVerification({ ...request, command: 'node --test' }, root, createObservationRuntime());
    expect(result).toMatchObject({ passed: true, exitCode: 0, timedOut: false, command: 'node --test' });
    expect(result.output).toMatch(/pass 1/);
  });

  it('fails on a non-zero exit, with the output for the repair stage', async () => {
    const root = sandbox();
    const result = await runVerification(
      { ...request, command: 'echo broken >&2; exit 3' },
      root,
      createObservationRuntime(),
    );
    expect(result).toMatchObject({ passed: false, exitCode: 3 });
    expect(result.output).toBe('exited with code 3\nstderr:\nbroken\n');
  });

  it('offloads large output to the observation store under the repair stage that reads it', async () => {
    const root = sandbox();
    const runtime = createObservationRuntime();
    const result = await runVerification({ ...request, command: 'seq 1 20000; exit 1' }, root, runtime);
    expect(result.passed).toBe(false);
    expect(result.scratchpadId).toMatch(/^[0-9a-f]{16}$/);
    expect(result.output.length).toBeLessThan(6000);
    const entry = await runtime.store.info(result.scratchpadId as string);
    expect(entry?.turnId).toBe('staged/a/1/repair-1');
  });

  it('kills a command at its timeout', async () => {
    const root = sandbox();
    const started = Date.now();
    const result = await runVerification(
      { ...request, command: 'sleep 30 & sleep 30', timeoutMs: 1000 },
      root,
      createObservationRuntime(),
    );
    expect(result).toMatchObject({ passed: false, timedOut: true });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

// Issue 18: a model-written probe.sh run by `--verify "sh probe.sh"` left a setuid-root `find` that gave nobody euid 0.
describe('verification leaves nothing privileged behind', () => {
  const probe = [
    'cp /usr/bin/find suidfind',
    'chmod 4755 suidfind',
    'mkdir group && chmod 2777 group',
    'id -u > uid.txt',
    './suidfind . -maxdepth 0 -exec grep -E "^(Uid|CapEff)" /proc/self/status ";"',
  ].join('\n');

  it('a setuid copy made by the command is no longer setuid afterwards, and nothing ran as host root', async () => {
    const root = sandbox();
    fs.writeFileSync(path.join(root, 'probe.sh'), `${probe}\n`);
    const result = await runVerification({ ...request, command: 'sh probe.sh' }, root, createObservationRuntime());
    expect(result).toMatchObject({ passed: true });
    expect(result.output).toContain('setuid/setgid bits cleared afterwards: group, suidfind');
    const suid = fs.statSync(path.join(root, 'suidfind'));
    expect(suid.mode & 0o7777).toBe(0o755);
    expect(fs.statSync(path.join(root, 'group')).mode & 0o7777).toBe(0o777);
    // What the command created is owned, on the host, by whoever it ran as: never root.
    for (const made of ['suidfind', 'uid.txt']) expect(fs.statSync(path.join(root, made)).uid).not.toBe(0);
    expect(result.output).toMatch(/CapEff:\s+0+\n/);
    if (process.getuid?.() !== 0) return;
    // The finding's own check: run by nobody on the host, the file left behind grants nothing.
    const status = execFileSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        './suidfind',
        '.',
        '-maxdepth',
        '0',
        '-exec',
        'grep',
        'Uid',
        '/proc/self/status',
        ';',
      ],
      { cwd: root, encoding: 'utf-8' },
    );
    expect(status).toMatch(/^Uid:\s+65534\s+65534\s+65534\s+65534$/m);
  });
});

describe("verification restores the stages' files from the store", () => {
  it('writes each file as the stages left it into a sandbox that lacks it, then runs', async () => {
    const runtime = createObservationRuntime();
    const written = { ok: true, result: 'wrote', path: 'lib/sum.js', bytes: 30 };
    const stored = await recordStageWrite('staged/a/1', 'exports.sum = (a, b) => a + b;\n', written, runtime);
    const file = { path: 'lib/sum.js', contentId: String(stored.content_id), sha256: String(stored.sha256) };
    expect(file.sha256).toBe(sha256('exports.sum = (a, b) => a + b;\n'));
    const root = sandbox();
    fs.mkdirSync(path.join(root, 'lib'));
    fs.writeFileSync(path.join(root, 'lib', 'sum.js'), 'stale\n');
    const command = `node -e "process.exit(require('./lib/sum.js').sum(2, 3) === 5 ? 0 : 1)"`;
    const result = await runVerification({ ...request, command, files: [file] }, root, runtime);
    expect(result).toMatchObject({ passed: true, exitCode: 0 });
    expect(fs.readFileSync(path.join(root, 'lib', 'sum.js'), 'utf8')).toBe('exports.sum = (a, b) => a + b;\n');
  });

  it("a stage's fs_read on another worker's sandbox reads what a stage wrote on the first", async () => {
    const store = new MemoryObservationStore();
    const [hostA, hostB] = [sandbox(), sandbox()];
    const tools = (sandboxRoot: string) => ({
      sandboxRoot,
      shellAllow: [],
      shellTimeoutMs: 1000,
      fetchAllowHosts: [],
      fetchMaxBytes: 1024,
    });
    const call = { cycleId: 'staged/a/1/stage-1', step: 1, agentId: 'a', stagedRunId: 'staged/a/1' };
    const write = { ...call, name: 'fs_write', args: { path: './notes/plan.md', content: 'v2\n' } };
    await runObservedTool(
      { ...write, args: { path: 'notes/plan.md', content: 'v1\n' } },
      tools(hostA),
      createObservationRuntime(store),
    );
    const written = await runObservedTool(write, tools(hostA), createObservationRuntime(store));
    expect(written).toMatchObject({ ok: true, path: 'notes/plan.md', sha256: sha256('v2\n') });
    expect(written.content_id).toMatch(/^[0-9a-f]{16}$/);
    fs.mkdirSync(path.join(hostB, 'notes'));
    fs.writeFileSync(path.join(hostB, 'notes', 'plan.md'), 'stale\n');
    const read = { ...call, cycleId: 'staged/a/1/repair-1', name: 'fs_read', args: { path: 'notes/plan.md' } };
    expect(await runObservedTool(read, tools(hostB), createObservationRuntime(store))).toMatchObject({
      ok: true,
      result: 'v2\n',
    });
    // Outside a staged run a write is not kept, and a read takes the sandbox as it is.
    const { stagedRunId: _run, ...plain } = write;
    expect(await runObservedTool(plain, tools(hostA), createObservationRuntime(store))).not.toHaveProperty(
      'content_id',
    );
    fs.writeFileSync(path.join(hostB, 'notes', 'plan.md'), 'local\n');
    const { stagedRunId: _again, ...plainRead } = read;
    expect(await runObservedTool(plainRead, tools(hostB), createObservationRuntime(store))).toMatchObject({
      result: 'local\n',
    });
  });

  it('does not run the command when a file cannot be restored, and says which', async () => {
    const file = { path: 'gone.js', contentId: '0123456789abcdef', sha256: sha256('x') };
    const root = sandbox();
    const result = await runVerification(
      { ...request, command: 'touch ran', files: [file] },
      root,
      createObservationRuntime(),
    );
    expect(result).toMatchObject({ passed: false, exitCode: null });
    expect(result.output).toBe(
      "verification could not run: the stages' files could not all be restored: gone.js (its content has left the observation store)",
    );
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });
});

describe('runConfined', () => {
  it('writes only inside the root and has no network', async () => {
    const root = sandbox();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-outside-'));
    const result = await runConfined({
      root,
      argv: [
        'sh',
        '-c',
        `echo in > inside.txt; echo out > ${outside}/x.txt; node -e "require('node:net').connect(80,'1.1.1.1').on('error',e=>{console.log(e.code);process.exit(0)})"`,
      ],
      timeoutMs: 10_000,
    });
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(fs.existsSync(path.join(outside, 'x.txt'))).toBe(false);
    expect(result.stdout).toMatch(/ENETUNREACH|EAI_AGAIN|ECONNREFUSED/);
  });

  it('does not pass the worker environment through', async () => {
    process.env.SECRET_FOR_TEST = 'leak';
    const result = await runConfined({
      root: sandbox(),
      argv: ['sh', '-c', 'echo "[$SECRET_FOR_TEST]"'],
      timeoutMs: 5000,
    });
    delete process.env.SECRET_FOR_TEST;
    expect(result.stdout).toBe('[]\n');
  });
});
