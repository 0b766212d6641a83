import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runConfined } from '../../src/activities/tools/confined';
import { runVerification } from '../../src/activities/tools/verification';
import { createObservationRuntime } from '../../src/activities/observations/runtime';

function sandbox(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-verify-')));
}

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
