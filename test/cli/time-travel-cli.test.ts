import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { AgentStatus } from '../../src/core/agent/agent';
import type { Scratchpad } from '../../src/core/scratchpad/scratchpad';
import { defaultScratchpad } from '../../src/core/scratchpad/scratchpad';
import { agentIdKey } from '../../src/common/search-attributes';
import { type CliRun, runCli, useSharedWorker } from '../helpers/cli';
import { testServerAddress } from '../helpers/temporal';

let home: string;
let connection: Connection;
let client: Client;
const taskQueue = `time-travel-cli-${process.pid}-${Date.now()}`;

/**
 * A command served by the file's worker, or by none: it may not run one of its own (and can run in the test's
 * process). Time travel needs no model; the turns that make the history name theirs (`send --model`).
 */
function scratchpad(args: string[]): Promise<CliRun> {
  return runCli(args, { home, taskQueue, env: { SCRATCHPAD_IN_PROCESS_WORKER: 'false' }, timeoutMs: 120_000 });
}

/** A scripted model of its own for one turn, which the file's worker reads afresh. */
async function script(name: string, lines: object[]): Promise<string> {
  const file = path.join(home, `${name}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

async function state(id: string, which?: 'after'): Promise<Scratchpad> {
  const shown = await scratchpad(['show', id, ...(which ? ['--state', which] : []), '--format', 'json']);
  expect(shown).toMatchObject({ code: 0 });
  return JSON.parse(shown.stdout) as Scratchpad;
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-time-travel-cli-'));
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection });
});

useSharedWorker(() => ({ home, taskQueue }));

afterAll(async () => {
  await connection?.close();
});

describe('scratchpad diff, fork and rewind (the compiled CLI)', () => {
  it('diffs, forks and rewinds an agent with three cycles without a model call', async () => {
    const agent = `travel-cli-${process.pid}-${Date.now()}`;
    const fork = `${agent}-fork`;
    const turns = [
      ['Hi, I am Ada.', 'Hello, Ada.', { identity_user: 'Ada', trajectory_now: 'Introductions' }],
      ['Lisbon next month?', 'Lisbon it is.', { trajectory_now: 'Planning Lisbon', workspace: '- flights' }],
      ['Actually Porto.', 'Porto instead.', { trajectory_now: 'Planning Porto', workspace: '- flights\n- train' }],
    ] as const;
    for (const [index, [message, reply, update]] of turns.entries()) {
      const model = await script(`turn-${index + 1}`, [{ text: reply }, { tool: 'update_scratchpad', args: update }]);
      const sent = await scratchpad(['send', agent, message, '--model', model]);
      expect(sent).toMatchObject({ code: 0, stdout: `${reply}\n` });
    }

    const between = await scratchpad(['diff', agent, '1', '3']);
    expect(between.code).toBe(0);
    expect(between.stdout).toBe(
      [
        `agent/${agent}/cycle/1 after → agent/${agent}/cycle/3 after: 2 part(s) changed, 3 line(s) added, 2 removed`,
        '',
        '## TRAJECTORY / Now',
        '- Introductions',
        '+ Planning Porto',
        '',
        '## WORKSPACE',
        '- (empty)',
        '+ - flights',
        '+ - train',
        '',
      ].join('\n'),
    );
    const within = await scratchpad(['diff', agent, `agent/${agent}/cycle/2`, '--json']);
    expect(within.code).toBe(0);
    expect(JSON.parse(within.stdout)).toMatchObject({
      agentId: agent,
      from: { n: 2, state: 'before' },
      to: { n: 2, state: 'after' },
      sections: [
        { section: 'TRAJECTORY', part: 'Now', changes: [{ op: '-', text: 'Introductions' }, { op: '+' }] },
        { section: 'WORKSPACE', part: null },
      ],
    });

    // fork needs neither a worker nor a model.
    const forked = await scratchpad(['fork', agent, '--at', '2', '--as', fork, '--json']);
    expect(forked.code).toBe(0);
    expect(JSON.parse(forked.stdout)).toEqual({
      agentId: fork,
      workflowId: `agent/${fork}`,
      origin: { agent, cycle: 2 },
      taskQueue,
    });
    const exported = await scratchpad(['export', fork]);
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout) as { origin: unknown; turn: number; scratchpad: Scratchpad };
    expect(document).toMatchObject({ origin: { agent, cycle: 2 }, turn: 0 });
    expect(document.scratchpad).toEqual(await state(`agent/${agent}/cycle/2`, 'after'));
    const again = await scratchpad(['fork', agent, '--at', '1', '--as', fork]);
    expect(again).toMatchObject({
      code: 1,
      stderr: `scratchpad: agent "${fork}" already exists: fork under a new name\n`,
    });

    const rewound = await scratchpad(['rewind', agent, '--to', '1']);
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toMatch(
      new RegExp(`^Rewound agent/${agent} to cycle 1's after-state \\(recorded at \\S+ by \\S+@\\S+\\); later cycles`),
    );
    expect(await state(agent)).toEqual(await state(`agent/${agent}/cycle/1`, 'after'));
    const status = await scratchpad(['status', agent, '--json']);
    const parsed = JSON.parse(status.stdout) as AgentStatus;
    // No cycle ran: the later cycles stay, and the rewind is recorded.
    expect(parsed).toMatchObject({ cycleCount: 3, running: null, rewinds: [{ to: 1 }] });
    expect((await scratchpad(['diff', agent, '3'])).code).toBe(0);
  }, 600_000);

  it('refuses in one line: an unknown agent or cycle, a cycle not finished', async () => {
    const nobody = `travel-nobody-${process.pid}-${Date.now()}`;
    expect(await scratchpad(['diff', nobody, '1'])).toMatchObject({
      code: 1,
      stderr: `scratchpad: no agent "${nobody}" (scratchpad agents list shows the agents)\n`,
    });
    expect(await scratchpad(['fork', nobody, '--at', '1', '--as', `${nobody}-2`])).toMatchObject({
      code: 1,
      stderr: `scratchpad: no agent "${nobody}" (scratchpad agents list shows the agents)\n`,
    });
    expect(await scratchpad(['diff', '../x', '1'])).toMatchObject({ code: 2 });

    // A cycle no worker runs stays RUNNING: it has a before-state but no after-state yet.
    const agent = `travel-running-${process.pid}-${Date.now()}`;
    const workflowId = `agent/${agent}/cycle/1`;
    const cycle = await client.workflow.start('agentCycle', {
      taskQueue: `${taskQueue}-no-worker`,
      workflowId,
      args: [{ agentId: agent, kind: 'chat', before: defaultScratchpad(), message: 'hello' }],
      typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agent }]),
    });
    try {
      expect(await scratchpad(['diff', agent, '1'])).toMatchObject({
        code: 1,
        stderr: `scratchpad: ${workflowId} has not finished (it is still running): it has no after-state\n`,
      });
      expect(await scratchpad(['diff', agent, '2'])).toMatchObject({
        code: 1,
        stderr: `scratchpad: agent "${agent}" has no cycle 2 (its cycles are 1 to 1)\n`,
      });
      const rewind = await scratchpad(['rewind', agent, '--to', '1']);
      expect(rewind).toMatchObject({ code: 1, stderr: expect.stringContaining(`${workflowId} has not finished`) });
    } finally {
      await cycle.terminate().catch(() => undefined);
    }
  }, 300_000);
});
