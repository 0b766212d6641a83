import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { Agents } from '../../src/clients/agents';
import type { TurnEvent } from '../../src/clients/turn-stream';
import type { CycleResult } from '../../src/core/cycle/input';
import { BackgroundCli } from '../helpers/cli';
import { testEnvironment, uniqueId, uniqueTaskQueue, waitFor } from '../helpers/temporal';

/*
 * A worker SIGKILLed while it streams a reply: `scratchpad worker` processes on one task queue, the first killed once
 * the reader has some of the reply. The model call is tried again on the second (after its heartbeat timeout); the
 * stream says `restart`, then has the new attempt's text, and ends with the reply history holds.
 */

const REPLY = 'Porto sits on the Douro, famous for its bridges, its tiled facades and the wine that bears its name.';

let env: TestWorkflowEnvironment;
let home: string;
const workers: BackgroundCli[] = [];

beforeAll(async () => {
  env = await testEnvironment();
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-stream-kill-'));
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await env?.teardown();
});

it('a worker killed mid-reply: `restart`, the new attempt’s text, and a final reply equal to history', async () => {
  // Entries that keep no position: the second worker's script answers as the first one's would.
  const script: ScriptEntry[] = [
    { match: ['Review this exchange'], tool: 'update_scratchpad', args: { trajectory_now: 'Talked about Porto' } },
    { match: ['Tell me about Porto'], text: REPLY, delayMs: 4_000 },
  ];
  const file = path.join(home, 'porto.jsonl');
  await fs.writeFile(file, script.map((entry) => JSON.stringify(entry)).join('\n'));
  const place = {
    home,
    taskQueue: uniqueTaskQueue('stream-kill'),
    env: { SCRATCHPAD_MODEL: `scripted:${file}`, SCRATCHPAD_IN_PROCESS_WORKER: 'false' },
  };
  const start = async () => {
    const worker = BackgroundCli.start(['worker'], place);
    workers.push(worker);
    await worker.waitForStderr(/Worker polling/, 60_000);
    return worker;
  };
  const first = await start();
  const agents = new Agents(env.client);
  const stream = agents.stream(
    { agentId: uniqueId('stream-kill'), taskQueue: place.taskQueue },
    { message: 'Tell me about Porto.' },
  );
  const events: TurnEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) events.push(event);
  })();
  await waitFor(() => events.some((event) => event.type === 'text'), { timeoutMs: 60_000, what: 'the first words' });
  await first.stop();
  await start();
  await reading;
  const restart = events.findIndex((event) => event.type === 'restart');
  expect(restart).toBeGreaterThan(0);
  const text = (from: number, to?: number) =>
    events
      .slice(from, to)
      .flatMap((event) => (event.type === 'text' ? [event.text] : []))
      .join('');
  // The first attempt's words, then all of the second's.
  expect(REPLY.startsWith(text(0, restart))).toBe(true);
  expect(text(restart)).toBe(REPLY);
  const done = events.at(-1)!;
  expect(done).toMatchObject({ type: 'done', reply: REPLY, outcome: 'completed' });
  const result = (await env.client.workflow.getHandle((await stream.result).cycleId).result()) as CycleResult;
  expect(result.reply).toBe(REPLY);
}, 180_000);
