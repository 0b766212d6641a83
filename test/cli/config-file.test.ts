import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, type CliRun, cliEnvironment } from '../helpers/cli';

let home: string;

/** The command run in `cwd` against the test dev server, with `env` and no SCRATCHPAD_TASK_QUEUE unless given. */
function scratchpadIn(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { SCRATCHPAD_TASK_QUEUE: _unset, ...base } = cliEnvironment({ home, taskQueue: '' });
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...base, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The task queue `research list` read: it names it when no run is on it. */
function queueOf(run: CliRun): string | undefined {
  return /no research runs on task queue "([^"]+)"/.exec(run.stderr)?.[1];
}

jest.setTimeout(60_000);

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-config-file-'));
});

afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('scratchpad.json', () => {
  it('sets a variable from the working directory; the environment wins; --config names another file', async () => {
    const project = path.join(home, 'project');
    await fs.mkdir(project);
    await fs.writeFile(
      path.join(project, 'scratchpad.json'),
      JSON.stringify({ SCRATCHPAD_TASK_QUEUE: `from-file-${process.pid}`, SCRATCHPAD_LOG_LEVEL: 'error' }),
    );
    const fromFile = await scratchpadIn(project, ['research', 'list']);
    expect(fromFile.code).toBe(0);
    expect(queueOf(fromFile)).toBe(`from-file-${process.pid}`);

    const fromEnv = await scratchpadIn(project, ['research', 'list'], { SCRATCHPAD_TASK_QUEUE: 'from-env' });
    expect(queueOf(fromEnv)).toBe('from-env');

    await fs.writeFile(path.join(home, 'other.json'), JSON.stringify({ SCRATCHPAD_TASK_QUEUE: 'from-option' }));
    const fromOption = await scratchpadIn(project, ['--config', '../other.json', 'research', 'list']);
    expect(queueOf(fromOption)).toBe('from-option');
    const fromVariable = await scratchpadIn(project, ['research', 'list'], { SCRATCHPAD_CONFIG: '../other.json' });
    expect(queueOf(fromVariable)).toBe('from-option');

    // Elsewhere, no file: the default queue.
    expect(queueOf(await scratchpadIn(home, ['research', 'list']))).toBe('scratchpad');
  });

  it('refuses an unknown key or bad JSON in one line naming the file (exit 2); --verbose adds the stack', async () => {
    const project = path.join(home, 'typo');
    await fs.mkdir(project);
    const file = path.join(project, 'scratchpad.json');
    await fs.writeFile(file, JSON.stringify({ SCRATCHPAD_TASKQUEUE: 'x' }));
    const typo = await scratchpadIn(project, ['research', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe(
      `scratchpad: config file ${file}: unknown key "SCRATCHPAD_TASKQUEUE": keys are the environment variables ` +
        '`scratchpad --help` lists\n',
    );
    const verbose = await scratchpadIn(project, ['research', 'list', '--verbose']);
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/^CliError: config file .*\n {4}at /);
    expect(verbose.stderr.endsWith(typo.stderr)).toBe(true);

    await fs.writeFile(file, '{"SCRATCHPAD_TASK_QUEUE": "x",}');
    const bad = await scratchpadIn(project, ['research', 'list']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`^scratchpad: config file ${file}: not JSON \\(.*\\)\\n$`));

    const missing = await scratchpadIn(home, ['--config', 'nowhere.json', 'research', 'list']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`config file ${path.join(home, 'nowhere.json')} not found`);
    // Help needs no configuration, and a bad file does not stop it.
    const help = await scratchpadIn(project, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Config file: scratchpad.json in the working directory, or --config FILE');
  });
});

describe('global options', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await fs.readFile(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const run = await scratchpadIn(home, ['--version']);
    expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help lists every exit code, 6 for an incomplete research run among them', async () => {
    const run = await scratchpadIn(home, ['--help']);
    for (const code of ['0 success', '1 error', '2 bad usage', '3 cycle outcome', '4 cycle outcome', '5 staged run']) {
      expect(run.stdout).toContain(code);
    }
    expect(run.stdout).toContain('6 research run "incomplete"');
    expect(run.stdout).toMatch(/--verbose +on error, print the details/);
  });
});
