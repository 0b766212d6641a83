import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { signalAgent } from '../../src/clients/agents';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { approvalsQuery, decideUpdate, statusQuery, wakeSignal } from '../../src/common/messages/agent';
import { traceQuery } from '../../src/common/messages/cycle';
import type { CycleResult } from '../../src/core/cycle/input';
import type { PendingApproval } from '../../src/core/tools/approval';
import { FaultSuite } from './suite';
import type { WorkerProcess } from './processes';
import { TRIALS } from './trial';
import { retrying } from './retrying';

/*
 * Side effects at most once where the tool can tell (issue 29). Each trial's agent calls a tool of the user's that
 * charges an order: an effect outside the agent, counted in a file, skipped when the call's idempotency key was
 * applied already. The worker is SIGKILLed while the calls are in flight, half of them after their effect and half
 * before it, and a new worker is started. `charge` (retry: true) is run again by Temporal: the key makes the repeat a
 * no-op, so every order is charged exactly once. `charge_once` (retry: false) is not run again: its outcome is
 * unknown, which the model, the trace and `status` are told; under `charge_ask` (approval: 'ask') a person decides
 * whether it runs again, with the same key.
 */

const suite = new FaultSuite();
let worker: WorkerProcess;
const work = path.join(suite.directory, 'idempotency');
const modelFile = path.join(suite.directory, 'idempotency.jsonl');
const toolsFile = path.join(suite.directory, 'idempotency-tools.js');
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
/** Calls in flight at each kill. */
const ROUND_SIZE = 10;
/** How long a call holds before its effect (odd orders) and after it (every order): long enough to be killed in. */
const HOLD_MS = 3000;
const UNKNOWN_TRIALS = { once: [TRIALS + 1, TRIALS + 2], ask: [TRIALS + 3, TRIALS + 4] };

const TOOLS_MODULE = `
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.IDEMPOTENCY_DIR;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const write = (file, value) => fs.appendFileSync(path.join(dir, file), JSON.stringify(value) + '\\n');
function applied(key) {
  const text = fs.existsSync(path.join(dir, 'effects.jsonl')) ? fs.readFileSync(path.join(dir, 'effects.jsonl'), 'utf8') : '';
  return text.split('\\n').some((line) => line !== '' && JSON.parse(line).key === key);
}
function charge(name, policy) {
  return {
    name,
    description: 'Charges an order. Charging twice would bill the customer twice.',
    input: {
      type: 'object',
      properties: { order: { type: 'integer' }, holdMs: { type: 'integer' } },
      required: ['order', 'holdMs'],
      additionalProperties: false,
    },
    ...policy,
    run: async ({ order, holdMs }, { idempotencyKey: key }) => {
      write('attempts.jsonl', { tool: name, order, key, pid: process.pid });
      await sleep(holdMs);
      if (applied(key)) {
        write('skips.jsonl', { tool: name, order, key, pid: process.pid });
        return 'charged already: this key was applied';
      }
      write('effects.jsonl', { tool: name, order, key, pid: process.pid });
      await sleep(${HOLD_MS});
      return 'charged';
    },
  };
}
module.exports = [
  charge('charge', {}),
  charge('charge_once', { retry: false }),
  charge('charge_ask', { retry: false, approval: 'ask' }),
];
`;

function toolOf(order: number): string {
  if (UNKNOWN_TRIALS.once.includes(order)) return 'charge_once';
  return UNKNOWN_TRIALS.ask.includes(order) ? 'charge_ask' : 'charge';
}

/**
 * Odd orders hold before their effect, so the kill comes before it; even ones after it. Of the calls that do not
 * run again, the second `charge_once` is killed before its effect, the others after it.
 */
function holdOf(order: number): number {
  const unknown = [...UNKNOWN_TRIALS.once, ...UNKNOWN_TRIALS.ask];
  if (unknown.includes(order)) return order === UNKNOWN_TRIALS.once[1] ? HOLD_MS : 0;
  return order % 2 === 1 ? HOLD_MS : 0;
}

function trialScript(): ScriptEntry[] {
  const orders = Array.from({ length: TRIALS + 4 }, (_, index) => index + 1);
  return [
    ...orders.map((order) => ({
      match: [`idempotency trial ${order}.`, 'Iteration 1 of'],
      tool: toolOf(order),
      args: { order, holdMs: holdOf(order) },
    })),
    { match: ['Iteration 2 of'], tool: 'done', args: { summary: 'charged' } },
  ];
}

function startWorker(): WorkerProcess {
  return suite.startWorker(undefined, {
    SCRATCHPAD_MODEL: `scripted:${modelFile}`,
    SCRATCHPAD_TOOLS: toolsFile,
    IDEMPOTENCY_DIR: work,
  });
}

beforeAll(async () => {
  await suite.start();
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(toolsFile, TOOLS_MODULE);
  fs.writeFileSync(
    modelFile,
    `${trialScript()
      .map((entry) => JSON.stringify(entry))
      .join('\n')}\n`,
  );
  worker = startWorker();
  await worker.ready;
}, 120_000);
afterAll(() => suite.stop());

interface Line {
  tool: string;
  order: number;
  key: string;
  pid: number;
}

function lines(file: string): Line[] {
  const full = path.join(work, file);
  if (!fs.existsSync(full)) return [];
  return fs
    .readFileSync(full, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

function of(file: string, order: number): Line[] {
  return lines(file).filter((line) => line.order === order);
}

const agentOf = (order: number) => `idempotency-${order}-${process.pid}`;
const agentHandle = (order: number) => suite.client.workflow.getHandle(agentWorkflowId(agentOf(order)));
const cycleOf = (order: number) => cycleWorkflowId(agentOf(order), 1);

async function start(order: number): Promise<void> {
  const target = { agentId: agentOf(order), taskQueue: suite.taskQueue };
  await signalAgent(suite.client, target, wakeSignal, [{ tasks: [`idempotency trial ${order}.`] }]);
}

/** The call an agent waits on; with `question`, only a call asked again after an unknown outcome. */
async function waiting(order: number, question = false): Promise<PendingApproval> {
  const calls = await retrying(
    () => agentHandle(order).query(approvalsQuery),
    (pending) => pending.length === 1 && (pending[0]?.context ?? '').includes('outcome unknown') === question,
  );
  return calls[0] as PendingApproval;
}

async function decide(order: number, call: PendingApproval, decision: 'approve' | 'deny'): Promise<void> {
  const reason = decision === 'deny' ? { reason: 'checked the ledger: it went through' } : {};
  await agentHandle(order).executeUpdate(decideUpdate, {
    args: [{ callId: call.callId, decision, by: 'fault-trial', ...reason }],
  });
}

/** Once every order's first attempt is under way, SIGKILLs the worker mid-call and starts another. */
async function killMidCall(orders: number[]): Promise<void> {
  await retrying(
    async () => orders.filter((order) => of('attempts.jsonl', order).length > 0).length,
    (started) => started === orders.length,
  );
  await sleep(300);
  worker.kill();
  worker = startWorker();
  await worker.ready;
}

async function resultOf(order: number): Promise<CycleResult> {
  return retrying(
    () => suite.client.workflow.getHandle(cycleOf(order)).result() as Promise<CycleResult>,
    () => true,
    180_000,
  );
}

interface Counted {
  order: number;
  tool: string;
  killed: 'before effect' | 'after effect';
  attempts: number;
  effects: number;
  skips: number;
  problems: string[];
}

function count(order: number, killedPid: number): Omit<Counted, 'problems'> {
  const attempts = of('attempts.jsonl', order);
  const effects = of('effects.jsonl', order);
  const killed = effects.some((line) => line.pid === killedPid) ? 'after effect' : 'before effect';
  const skips = of('skips.jsonl', order).length;
  return { order, tool: toolOf(order), killed, attempts: attempts.length, effects: effects.length, skips };
}

function table(title: string, rows: Counted[]): string {
  return [
    title,
    'trial  tool         killed         attempts  effects  skipped by key  checks',
    ...rows.map(
      (row) =>
        `${String(row.order).padStart(5)}  ${row.tool.padEnd(11)}  ${row.killed.padEnd(13)}  ` +
        `${String(row.attempts).padStart(8)}  ${String(row.effects).padStart(7)}  ${String(row.skips).padStart(14)}  ` +
        `${row.problems.length === 0 ? 'ok' : row.problems.join('; ')}`,
    ),
  ].join('\n');
}

const reports: string[] = [];
afterAll(() => {
  if (reports.length === 0) return;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, 'faults-idempotency.txt'), `${reports.join('\n\n')}\n`);
});

describe('a worker killed mid-call of a tool with an external effect', () => {
  it(`charges each order once over ${TRIALS} calls killed mid-call: the retry carries the key`, async () => {
    const rows: Counted[] = [];
    for (let first = 1; first <= TRIALS; first += ROUND_SIZE) {
      const orders = Array.from({ length: Math.min(ROUND_SIZE, TRIALS - first + 1) }, (_, index) => first + index);
      await Promise.all(orders.map(start));
      const killedPid = worker.pid;
      await killMidCall(orders);
      const results = await Promise.all(orders.map(resultOf));
      orders.forEach((order, index) => {
        const counted = count(order, killedPid);
        const problems: string[] = [];
        const check = (ok: boolean, problem: string) => ok || problems.push(problem);
        check(results[index]?.outcome === 'completed', `outcome ${results[index]?.outcome}`);
        check(counted.attempts >= 2, `${counted.attempts} attempt(s): the kill missed the call`);
        check(counted.effects === 1, `${counted.effects} effects`);
        check(new Set(of('attempts.jsonl', order).map((line) => line.key)).size === 1, 'the key changed on retry');
        rows.push({ ...counted, problems });
      });
    }
    const duplicates = rows.reduce((sum, row) => sum + Math.max(0, row.effects - 1), 0);
    const after = rows.filter((row) => row.killed === 'after effect').length;
    const summary =
      `${rows.length} calls killed mid-call (${after} after their effect): ` +
      `${rows.reduce((sum, row) => sum + row.attempts, 0)} attempts, ` +
      `${rows.reduce((sum, row) => sum + row.effects, 0)} effects, ${duplicates} duplicate effects; ` +
      `${rows.reduce((sum, row) => sum + row.skips, 0)} repeats skipped by their key`;
    const text = `${table(`Idempotency: a worker SIGKILLed mid-call, charge (retry: true)`, rows)}\n${summary}`;
    reports.push(text);
    process.stdout.write(`\n${text}\n`);
    expect(rows.filter((row) => row.problems.length > 0)).toEqual([]);
    expect(duplicates).toBe(0);
  });

  it('records a retry: false call whose worker died as an unknown outcome; under ask a person decides', async () => {
    const orders = [...UNKNOWN_TRIALS.once, ...UNKNOWN_TRIALS.ask];
    const [rerun, denied] = UNKNOWN_TRIALS.ask as [number, number];
    await Promise.all(orders.map(start));
    for (const order of UNKNOWN_TRIALS.ask) await decide(order, await waiting(order), 'approve');
    const killedPid = worker.pid;
    await killMidCall(orders);
    await decide(rerun, await waiting(rerun, true), 'approve');
    await decide(denied, await waiting(denied, true), 'deny');
    const rows: Counted[] = [];
    for (const order of orders) {
      const result = await resultOf(order);
      const key = `${cycleOf(order)}/call/1.1`;
      const counted = count(order, killedPid);
      const problems: string[] = [];
      const check = (ok: boolean, problem: string) => ok || problems.push(problem);
      check(result.outcome === 'completed', `outcome ${result.outcome}`);
      check(
        of('attempts.jsonl', order).every((line) => line.key === key),
        'a call ran under another key',
      );
      // Only a call killed after its effect took effect: none ran again without a person, and then with its key.
      check(counted.effects === (counted.killed === 'after effect' ? 1 : 0), `${counted.effects} effects`);
      const trace = await suite.client.workflow.getHandle(cycleOf(order)).query(traceQuery);
      const traced = trace.find((entry) => entry.action?.tool === toolOf(order));
      const status = await retrying(
        () => agentHandle(order).query(statusQuery),
        (value) => value.running === null && value.cycleCount === 1,
      );
      const listed = (status.unknownOutcomes ?? []).map((entry) => entry.key);
      if (order === rerun) {
        // A person approved a second run: it carried the same key, so the charge made before the kill was not repeated.
        check(counted.attempts === 2 && counted.skips === 1, `${counted.attempts} attempts, ${counted.skips} skipped`);
        check(result.after.notes.includes('run again after an unknown outcome'), 'the model was not told of the rerun');
        check(result.unknownOutcomes === undefined, 'a call that ran again is still listed as unknown');
        check(listed.length === 0, 'status lists a call that ran again');
        check(result.decisions?.map((entry) => entry.decision).join() === 'approve,approve', 'decisions');
      } else {
        check(counted.attempts === 1, `${counted.attempts} attempts: the call ran again`);
        check(result.after.notes.includes('Outcome unknown: the call may or may not have taken effect'), 'no notice');
        check(result.after.notes.includes(`Its idempotency key is ${key}`), 'the model was not told the key');
        check(result.unknownOutcomes?.[0]?.key === key, 'the result does not list the call');
        check(traced?.unknownOutcome?.key === key, 'the trace does not mark the call');
        check(listed.includes(key), 'status does not list the call');
      }
      if (order === denied) {
        check(result.after.notes.includes('A person was asked whether to run it again: denied by'), 'no denial');
      }
      rows.push({ ...counted, problems });
    }
    const text = table('Idempotency: retry: false calls whose worker was SIGKILLed mid-call', rows);
    reports.push(text);
    process.stdout.write(`\n${text}\n`);
    expect(rows.filter((row) => row.problems.length > 0)).toEqual([]);
  });
});
