import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BackgroundCli, type CliRun, runCli } from '../helpers/cli';
import { EVERYTHING, freePort } from '../helpers/mcp';
import type { Scratchpad } from '../../src/core/scratchpad/scratchpad';
import { uniqueId, waitFor } from '../helpers/temporal';

/** `scratchpad tools`, `worker --tools/--mcp-config`, `configure --tools` and `cycle --tools`, as a user runs them. */

let home: string;
let toolsModule: string;
let mcpConfig: string;
let worker: BackgroundCli;
let workerReady: Promise<void>;

const WORKER_QUEUE = `tools-cli-${process.pid}-${Date.now()}`;
const DIST_WORKER = path.resolve(__dirname, '..', '..', 'dist', 'src', 'worker.js');

/** The command on `taskQueue` (by default the background worker's); only a worker reads the model's script. */
function scratchpad(args: string[], options: { taskQueue?: string; env?: Record<string, string> } = {}) {
  return runCli(args, {
    home,
    taskQueue: options.taskQueue ?? WORKER_QUEUE,
    // The file's worker serves every command: none may run one of its own (and each can run in the test's process).
    env: {
      SCRATCHPAD_MODEL: `scripted:${path.join(home, 'model.jsonl')}`,
      SCRATCHPAD_IN_PROCESS_WORKER: 'false',
      ...options.env,
    },
    timeoutMs: 30_000,
  });
}

/** A refusal as the CLI prints it: one line, no stack. */
function expectOneLineError(run: CliRun, code: number, message: string | RegExp): void {
  expect(run.code).toBe(code);
  expect(run.stderr).toMatch(/^scratchpad: [^\n]*\n$/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  if (typeof message === 'string') expect(run.stderr).toContain(message);
  else expect(run.stderr).toMatch(message);
}

/** The rows of the `scratchpad tools` table by name: whether `*` marks it, its source and its policy. */
function tableRows(stdout: string): Map<string, { marked: boolean; source: string; policy: string }> {
  const rows = new Map<string, { marked: boolean; source: string; policy: string }>();
  for (const line of stdout.split('\n').slice(1)) {
    if (line.trim() === '') break;
    const marked = line.startsWith('* ');
    const [name, source, policy] = line.slice(line.startsWith('* ') || line.startsWith('  ') ? 2 : 0).split(/ {2,}/);
    if (name && source && policy) rows.set(name, { marked, source, policy });
  }
  return rows;
}

async function writeModule(name: string, source: string): Promise<string> {
  const file = path.join(home, name);
  await fs.writeFile(file, source);
  return file;
}

/** The worker prints its `Tools:` line just before its first poll: ask until it answers. */
async function toolsOnceTheWorkerPolls(): Promise<CliRun> {
  await workerReady;
  return waitFor(
    () => scratchpad(['tools']),
    (run) => run.code === 0 || !run.stderr.includes('no worker polls'),
    { intervalMs: 250, what: 'the worker to poll' },
  );
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-tools-cli-'));
  // A tools module in a folder of its own, as a user's would be: one tool made by the package's defineTool (by
  // absolute path, as no node_modules is near), one a plain definition object the loader checks itself.
  toolsModule = await writeModule(
    'my-tools.js',
    `const { defineTool } = require(${JSON.stringify(DIST_WORKER)});
module.exports = [
  defineTool({
    name: 'lookup_order',
    description: 'Look up an order by id.',
    input: { type: 'object', properties: { id: { type: 'string', pattern: '^A[0-9]+$' } }, required: ['id'] },
    run: (args) => ({ id: args.id, status: 'shipped' }),
  }),
  {
    name: 'lookup_user',
    description: 'Look up a user by name.',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    timeoutMs: 5000,
    retry: false,
    run: (args) => 'user ' + args.name + ' found',
  },
];
`,
  );
  mcpConfig = path.join(home, 'mcp.json');
  await fs.writeFile(
    mcpConfig,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
  );
  // The worker's model: read once, on its first call, by the one cycle test below; in the order it asks.
  const script = [
    { tool: 'echo', args: { message: 'not offered' } },
    // A tool not offered is no call the request forced: the one corrective retry calls it again.
    { tool: 'echo', args: { message: 'not offered' } },
    { tool: 'lookup_order', args: { id: 'A17' } },
    { tool: 'done', args: { summary: 'A17 shipped' } },
  ];
  await fs.writeFile(path.join(home, 'model.jsonl'), script.map((line) => JSON.stringify(line)).join('\n'));
  // Started now and awaited by the first test that needs it: the tests without a worker run meanwhile.
  worker = BackgroundCli.start(['worker', '--tools', toolsModule, '--mcp-config', mcpConfig], {
    home,
    taskQueue: WORKER_QUEUE,
    // Hosts to fetch from, but no search endpoint: web_search is left out, and said to be.
    env: { SCRATCHPAD_MODEL: `scripted:${path.join(home, 'model.jsonl')}`, SCRATCHPAD_FETCH_ALLOW: 'example.com' },
  });
  workerReady = worker.waitForStderr(/^Tools: .*\n/m);
  workerReady.catch(() => undefined);
});

afterAll(async () => {
  await worker?.stop();
});

describe('without a worker', () => {
  it('scratchpad tools says in one line that no worker polls, and how to start one', async () => {
    const taskQueue = uniqueId('tools-cli-empty');
    for (const args of [['tools'], ['tools', '--json']]) {
      const run = await scratchpad(args, { taskQueue });
      expectOneLineError(run, 1, `no worker polls task queue "${taskQueue}"`);
      expect(run.stderr).toContain('start one (`scratchpad worker` or `scratchpad dev`, with the same --tools');
      expect(run.stdout).toBe('');
    }
  });

  it('worker and dev refuse a clashing name, a bad module, a missing module or config at start, exit code 2', async () => {
    const taskQueue = uniqueId('tools-cli-refused');
    const clash = await writeModule(
      'clash.js',
      `module.exports = [{ name: 'echo', description: 'Mine.', input: { type: 'object' }, run: () => 'mine' }];\n`,
    );
    const notArray = await writeModule('not-array.js', `module.exports = { name: 'lookup' };\n`);
    const needs = await writeModule('needs.js', `require('no-such-package');\nmodule.exports = [];\n`);
    const broken = await writeModule('broken.js', `module.exports = [\n  { name: 'x' description: 'y' },\n];\n`);
    const missing = path.join(home, 'no-such-tools.js');
    // A Temporal CLI that only says it was run: dev must refuse the module before it provisions or starts a server.
    const calls = path.join(home, 'temporal-calls.txt');
    const temporal = await writeModule(
      'temporal',
      `#!/bin/sh\necho "$@" >> '${calls}'\necho 'temporal version 0.0.0'\n`,
    );
    await fs.chmod(temporal, 0o755);
    // dev serves the port of TEMPORAL_ADDRESS: a free one, not the test server's (which would answer in its stead).
    const dev = { TEMPORAL_CLI_PATH: temporal, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
    const refusals: [string[], Record<string, string>, string][] = [
      [['worker', '--tools', clash], {}, 'tool echo from code clashes with the built-in tool echo; rename yours'],
      [['worker'], { SCRATCHPAD_TOOLS: clash }, 'clashes with the built-in tool echo'],
      // --tools takes the place of SCRATCHPAD_TOOLS: the variable's missing file is never read.
      [['worker', '--tools', clash], { SCRATCHPAD_TOOLS: missing }, 'clashes with the built-in tool echo'],
      [['dev', '--tools', clash], dev, 'clashes with the built-in tool echo'],
      [['worker', '--tools', notArray], {}, `the tools module ${notArray} must export an array of tools`],
      [['worker', '--tools', missing], {}, `cannot load the tools module ${missing}: Cannot find module '${missing}'`],
      [['worker', '--tools', needs], {}, `cannot load the tools module ${needs}: Cannot find module 'no-such-package'`],
      [['worker', '--tools', broken], {}, `cannot load the tools module ${broken}: syntax error in ${broken} line 2:`],
      [['worker', '--mcp-config', path.join(home, 'none.json')], {}, 'none.json: no such MCP config file'],
    ];
    for (const [args, env, message] of refusals) {
      const run = await scratchpad(args, { taskQueue, env });
      expectOneLineError(run, 2, message);
    }
    await expect(fs.access(calls)).rejects.toThrow('ENOENT');
    // With good tools dev goes on to start the server; one that exits at once is reported without a stack.
    const exits = await scratchpad(['dev', '--tools', toolsModule], { taskQueue, env: dev });
    expect(exits.code).toBe(1);
    expect(exits.stderr).toContain('scratchpad: the Temporal dev server exited (0) before answering\n');
    expect(exits.stderr).not.toMatch(/\n\s+at /);
  });

  it('--help of scratchpad, worker, dev, tools, configure and cycle describe the tool options', async () => {
    const help = async (...args: string[]) => {
      const run = await scratchpad([...args, '--help']);
      expect(run.code).toBe(0);
      return run.stdout.replace(/\s+/g, ' ');
    };
    const top = await help();
    expect(top).toMatch(
      / tools \[options\] the tools a running worker offers: name, source \(builtin, code, mcp:NAME\)/,
    );
    expect(top).toContain('SCRATCHPAD_TOOLS a module (CommonJS or ESM) whose default export is an array of tools');
    expect(top).toContain(
      'SCRATCHPAD_MCP_CONFIG MCP servers whose tools the agents get: a JSON file in the mcpServers',
    );
    for (const command of ['worker', 'dev']) {
      const text = await help(command);
      expect(text).toContain('--tools <module> your tools: a module whose default export is an array of');
      expect(text).toContain('(overrides SCRATCHPAD_TOOLS)');
      expect(text).toContain('--mcp-config <file> MCP servers whose tools agents get: JSON in the mcpServers shape');
      expect(text).toContain('(overrides SCRATCHPAD_MCP_CONFIG)');
    }
    const tools = await help('tools');
    expect(tools).toContain('Usage: scratchpad tools [options]');
    expect(tools).toContain("--agent <id> mark the tools this agent's settings select");
    expect(tools).toContain('--json print every tool with its input schema as JSON');
    const configure = await help('configure');
    expect(configure).toContain("--tools <list> tools offered, by name or glob: 'fs_*,web_fetch,github__*'");
    expect(configure).toContain('--all-tools offer the default again: the built-ins and every tool the worker has');
    expect(await help('cycle')).toContain('--tools <list> tools offered in this cycle, by name or glob');
  });
});

describe('with a worker started with --tools and --mcp-config', () => {
  it('the worker says what it has; scratchpad tools lists built-ins, code and MCP tools; --json has the schemas', async () => {
    const table = await toolsOnceTheWorkerPolls();
    expect(worker.stderr).toMatch(
      /^Tools: \d+ builtin, 2 code, \d+ mcp:everything \(`scratchpad tools` lists them\)\.$/m,
    );
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +SOURCE +POLICY +APPROVAL +DESCRIPTION$/);
    const rows = tableRows(table.stdout);
    for (const builtin of ['echo', 'shell', 'fs_read', 'fs_write', 'web_fetch']) {
      expect(rows.get(builtin)).toMatchObject({ source: 'builtin', policy: '-' });
    }
    // A tool whose every call would fail is not offered; the worker and `tools` say why.
    expect(rows.has('web_search')).toBe(false);
    const noSearch = 'web_search not offered: no search endpoint configured (set SCRATCHPAD_SEARCH_URL';
    expect(worker.stderr).toContain(`Note: ${noSearch}`);
    expect(table.stdout).toContain(`unavailable: ${noSearch}`);
    expect(rows.get('lookup_order')).toMatchObject({ source: 'code', policy: '-' });
    expect(rows.get('lookup_user')).toMatchObject({ source: 'code', policy: 'timeout 5s, no retry' });
    expect(rows.get('everything__echo')).toMatchObject({ source: 'mcp:everything' });
    expect(table.stdout).toMatch(/^lookup_order +code +- +auto +Look up an order by id\.$/m);

    const json = await scratchpad(['tools', '--json']);
    expect(json.code).toBe(0);
    const catalogue = JSON.parse(json.stdout) as {
      tools: { name: string; source: string; inputSchema: Record<string, unknown>; policy: object }[];
      failures: string[];
    };
    expect(catalogue.failures).toEqual([expect.stringContaining(noSearch)]);
    const byName = new Map(catalogue.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('echo')).toMatchObject({
      source: 'builtin',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
    expect(byName.get('lookup_order')).toEqual({
      name: 'lookup_order',
      source: 'code',
      description: 'Look up an order by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^A[0-9]+$' } }, required: ['id'] },
      policy: { retry: true, offload: true, approval: 'auto' },
    });
    expect(byName.get('lookup_user')?.policy).toEqual({
      retry: false,
      offload: true,
      timeoutMs: 5000,
      approval: 'auto',
    });
    expect(byName.get('everything__echo')).toMatchObject({
      source: 'mcp:everything',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    });
  });

  it('configure --tools keeps the list, warns about a pattern no tool matches; tools --agent marks; --all-tools resets', async () => {
    await workerReady;
    const agent = uniqueId('tools-cli-configure');
    const configured = await scratchpad([
      'configure',
      agent,
      '--create',
      '--json',
      '--tools',
      'echo,lookup_*,nothing_*',
    ]);
    expect(configured.code).toBe(0);
    expect(JSON.parse(configured.stdout)).toMatchObject({ tools: ['echo', 'lookup_*', 'nothing_*'] });
    expect(configured.stderr).toBe('Warning: the worker has no tool matching nothing_* (see `scratchpad tools`).\n');

    const marked = await scratchpad(['tools', '--agent', agent]);
    expect(marked.code).toBe(0);
    const rows = tableRows(marked.stdout);
    const offered = [...rows].filter(([, row]) => row.marked).map(([name]) => name);
    expect(offered).toEqual(['echo', 'lookup_order', 'lookup_user']);
    expect(rows.get('everything__echo')).toMatchObject({ marked: false, source: 'mcp:everything' });
    expect(marked.stdout).toContain(`\n* offered to ${agent}\nnot on this worker: nothing_*\n`);
    const markedJson = JSON.parse((await scratchpad(['tools', '--agent', agent, '--json'])).stdout);
    expect(markedJson).toMatchObject({ offered: ['echo', 'lookup_order', 'lookup_user'], unmatched: ['nothing_*'] });

    const reset = await scratchpad(['configure', agent, '--json', '--all-tools']);
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ tools: null });
    expect(reset.stderr).toBe('');
    const all = tableRows((await scratchpad(['tools', '--agent', agent])).stdout);
    expect([...all.values()].every((row) => row.marked)).toBe(true);
    expect(all.get('everything__echo')?.marked).toBe(true);

    expectOneLineError(
      await scratchpad(['configure', agent, '--tools', 'rm -rf']),
      2,
      `invalid --tools "rm -rf": expected up to 100 comma-separated tool names or globs`,
    );
    expectOneLineError(
      await scratchpad(['configure', agent, '--tools', 'echo', '--all-tools']),
      2,
      'choose --tools or --all-tools, not both',
    );
    expectOneLineError(await scratchpad(['tools', '--agent', uniqueId('nobody')]), 2, /no agent nobody-/);
  });

  it('cycle --tools offers only the selection: a code tool runs and its result lands in the notes', async () => {
    await workerReady;
    const agent = uniqueId('tools-cli-cycle');
    const run = await scratchpad(['cycle', '--agent', agent, '--task', 'Check order A17', '--tools', 'lookup_*']);
    expect(run.stderr).not.toContain('running one in this process');
    expect(run.stdout).toMatch(new RegExp(`^Cycle agent/${agent}/cycle/1: completed after 3 iteration\\(s\\)`));
    expect(run.code).toBe(0);

    const shown = await scratchpad(['show', agent, '--format', 'json']);
    const notes = (JSON.parse(shown.stdout) as Scratchpad).notes;
    // echo is a built-in, but not in the selection: the model is told what it may call instead.
    expect(notes).toContain(
      '[TOOL] echo({"message":"not offered"}) → ERROR: unknown tool "echo" (available: lookup_order, lookup_user,',
    );
    expect(notes).toContain('[TOOL] lookup_order({"id":"A17"}) → {"id":"A17","status":"shipped"}');
    expect(notes).toContain('[COMPLETED] A17 shipped');
  });

  it('after the worker is gone, scratchpad tools says no worker polls (the server still lists it)', async () => {
    await worker.stop();
    const started = Date.now();
    const run = await scratchpad(['tools']);
    expectOneLineError(run, 1, `no worker polls task queue "${WORKER_QUEUE}"`);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
