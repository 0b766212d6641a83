import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CliRun, runCli } from '../helpers/cli';

let home: string;
const incompleteRun = `cli-incomplete-${process.pid}`;

/** A command that runs the research: with a worker of its own. */
function scratchpad(args: string[]): Promise<CliRun> {
  return runCli(args, {
    home,
    taskQueue: `cli-research-${process.pid}`,
    env: { SCRATCHPAD_IN_PROCESS_WORKER: 'true' },
  });
}

/** A command that only reads or refuses: it may not run a worker (and can run in the test's process). */
function reader(args: string[], taskQueue = `cli-research-${process.pid}`): Promise<CliRun> {
  return runCli(args, { home, taskQueue, env: { SCRATCHPAD_IN_PROCESS_WORKER: 'false' } });
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
    // No lists given: the scripted supervisor planned them, and the plan is the first thing printed.
    const strategy = lines.findIndex((line) => / STRATEGY \[supervisor:/.test(line));
    expect(lines.slice(strategy + 1, strategy + 3)).toEqual([
      '  entities: Acme, Globex',
      '  fields: revenue, employees (4 facts)',
    ]);
    expect(lines.filter((line) => /^e\d+ /.test(line))[0]).toBe(lines[strategy]);
    const runId = /research (demo-\S+) started/.exec(demo.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(lines.filter((line) => /^e\d+ VERIFIED /.test(line))).toHaveLength(4);
    expect(demo.stdout).toMatch(/ UNVERIFIED .*does not occur/);
    expect(demo.stdout).toMatch(/ TOMBSTONE .*\/dead/);
    const cited = /citing VERIFIED entries (.*):/.exec(demo.stdout)?.[1]?.split(', ') ?? [];
    const verified = lines.filter((line) => /^e\d+ VERIFIED /.test(line)).map((line) => line.split(' ')[0]);
    expect(cited.sort()).toEqual(verified.sort());
    // Each fact of the answer with the page's own words and the page: checkable at a glance.
    for (const [fact, quote, page] of [
      ['Acme revenue: 1234567', 'revenue USD 1,234,567', 'acme'],
      ['Acme employees: 5000', 'employees 5,000', 'acme'],
      ['Globex revenue: 890,000', 'revenue USD 890,000', 'globex'],
      ['Globex employees: 1 200', 'employees 1,200', 'globex'],
    ]) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^- ${fact} \\[e\\d+\\] "${quote}" \\(http://127\\.0\\.0\\.1:\\d+/${page}\\)$`),
        ),
      );
    }
    // The tombstoned source led to a new search by the supervisor's model, written on the re-delegated entry.
    expect(demo.stdout).toMatch(
      / PENDING \[supervisor:\S+\] Globex \/ revenue → \S+, new search: Globex annual report revenue -site:127\.0\.0\.1:\d+/,
    );
    expect(demo.stderr.match(/\/dead/g)).toHaveLength(1);
    // Scripted workers report token estimates at no cost: the roll-up is printed, not zero.
    expect(demo.stdout).toMatch(/Workers used [1-9]\d* input and [1-9]\d* output tokens, \$0\.0000\./);

    const board = await reader(['research', 'board', runId as string, '--json']);
    expect(board.code).toBe(0);
    const entries = JSON.parse(board.stdout) as { type: string }[];
    expect(entries.filter((entry) => entry.type === 'SYNTHESIS')).toHaveLength(1);
    const list = await reader(['research', 'list', '--all']);
    expect(list.stdout).toMatch(new RegExp(`research/${runId}\\tCOMPLETED\\tcomplete`));
  });

  it('start with only a question prints the STRATEGY its --model planned; workers use --worker-model', async () => {
    const supervisor = path.join(home, 'supervisor.jsonl');
    const workers = path.join(home, 'workers.jsonl');
    const plan = { goal: 'Acme headcount', entities: ['Acme'], fields: ['employees'] };
    await fs.writeFile(supervisor, `${JSON.stringify({ tool: 'plan_research', args: plan })}\n`);
    // Three workers (the first and two re-delegations) find nothing: the run ends incomplete, never guessed.
    const unverified = { tool: 'board_write', args: { status: 'UNVERIFIED', reason: 'no source found' } };
    await fs.writeFile(workers, `${JSON.stringify(unverified)}\n`.repeat(3));
    const run = await scratchpad([
      'research',
      'start',
      'How many people work at Acme?',
      // The workflow id as `research list` prints it: the prefix is not doubled.
      '--run-id',
      `research/${incompleteRun}`,
      '--model',
      `scripted:${supervisor}`,
      '--worker-model',
      `scripted:${workers}`,
    ]);
    // Incomplete is an outcome, not an error: exit code 6.
    expect(run.code).toBe(6);
    expect(run.stdout).toContain(`research ${incompleteRun} started (research/${incompleteRun})`);
    const lines = run.stdout.split('\n');
    expect(lines[1]).toBe("planning: the supervisor's model turns the question into STRATEGY");
    expect(lines[2]).toMatch(/^e1 STRATEGY \[supervisor:\S+\] goal: Acme headcount$/);
    expect(lines.slice(3, 5)).toEqual(['  entities: Acme', '  fields: employees (1 fact)']);
    expect(lines.filter((line) => / UNVERIFIED .*no source found/.test(line))).toHaveLength(3);
    expect(run.stdout).toContain('Missing:\n- Acme / employees: UNVERIFIED');
  });

  it('a plan the supervisor cannot make ends the run incomplete with the reason', async () => {
    const supervisor = path.join(home, 'hostile.jsonl');
    const hostile = { tool: 'plan_research', args: { entities: 'everything', fields: [] } };
    await fs.writeFile(supervisor, `${JSON.stringify(hostile)}\n`.repeat(2));
    const run = await scratchpad(['research', 'start', 'Everything?', '--model', `scripted:${supervisor}`]);
    expect(run.code).toBe(6);
    expect(run.stdout).toContain(
      "- STRATEGY: not written: the supervisor's plan was refused 2 times; last: entities must be a list of names, got a string",
    );
    expect(run.stdout).not.toMatch(/ STRATEGY \[/);
  });

  it('takes run ids with or without research/; a finished run refuses directives, saying it has finished', async () => {
    for (const id of [incompleteRun, `research/${incompleteRun}`]) {
      const board = await reader(['research', 'board', id, '--json']);
      expect(board.stderr).toBe('');
      expect(board.code).toBe(0);
      expect((JSON.parse(board.stdout) as { type: string }[]).map((entry) => entry.type)).toContain('STRATEGY');
    }
    const directive = await reader(['research', 'directive', `research/${incompleteRun}`, 'look harder']);
    expect(directive.code).toBe(1);
    expect(directive.stderr).toBe(
      `scratchpad: research run ${incompleteRun} has finished (COMPLETED, outcome incomplete): directives reach ` +
        'running runs only; start a new run with `scratchpad research start`\n',
    );
    const missing = await reader(['research', 'board', 'research/no-such-run']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'scratchpad: no such research run: no-such-run (`scratchpad research list --all` lists every run)\n',
    );
  });

  it('list: a header, the runs of this task queue by default, every run with --all', async () => {
    const list = await reader(['research', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('WORKFLOW ID\tSTATUS\tOUTCOME\tSTARTED');
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^research/${incompleteRun}\tCOMPLETED\tincomplete\t`)),
    );
    const elsewhere = `cli-research-other-${process.pid}`;
    const other = await reader(['research', 'list'], elsewhere);
    expect(other.code).toBe(0);
    expect(other.stdout).toBe('');
    expect(other.stderr).toBe(
      `no research runs on task queue "cli-research-other-${process.pid}" (--all lists every run)\n`,
    );
    const all = await reader(['research', 'list', '--all'], elsewhere);
    expect(all.stdout.split('\n')[0]).toBe('WORKFLOW ID\tSTATUS\tOUTCOME\tSTARTED');
    expect(all.stdout).toContain(`research/${incompleteRun}\tCOMPLETED\tincomplete\t`);
  });

  it('refuses a bad --max-workers and an empty directive with usage errors', async () => {
    const bad = await reader(['research', 'start', 'q', '--max-workers', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-workers');
    const tooMany = Array.from({ length: 65 }, (_, i) => `E${i}`).join(',');
    const lists = await reader(['research', 'start', 'q', '--entities', tooMany, '--fields', 'x']);
    expect(lists.code).toBe(2);
    expect(lists.stderr).toContain('entities');
    const empty = await reader(['research', 'directive', 'some-run', '  ']);
    expect(empty.code).toBe(2);
    const alias = await reader(['research', 'start', 'q', '--alias', 'revenue']);
    expect(alias.stderr).toContain('--alias revenue: expected field=name,name');
    expect(alias.code).toBe(2);
  });
});
