import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { signalAgent } from '../../src/clients/agents';
import { agentWorkflowId, cycleWorkflowId } from '../../src/common/ids';
import { approvalsQuery, decideUpdate, statusQuery, wakeSignal } from '../../src/common/messages/agent';
import type { CycleResult } from '../../src/core/cycle/input';
import type { Decision } from '../../src/core/tools/approval';
import { FaultSuite, portOf } from './suite';
import type { WorkerProcess } from './processes';
import { type KillPoint, type TrialRecord, TRIALS, report } from './trial';
import { retrying } from './retrying';

const EventType = temporal.api.enums.v1.EventType;
const SERVER_TRIALS = 2;

/*
 * Kill during an approval wait (issue 19): each trial's agent makes one `shell` call that the worker's policy
 * (SCRATCHPAD_APPROVE=shell) holds for a decision; the worker is SIGKILLed while the call waits, or just as the decision
 * is sent, and a new one started. `mkdir` fails when run twice, so a call run twice shows in its observation too.
 */

const suite = new FaultSuite();
let worker: WorkerProcess;
const modelFile = path.join(suite.directory, 'approvals.jsonl');
const sandbox = path.join(suite.directory, 'sandbox');

function trialScript(trials: number): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  for (let trial = 1; trial <= trials; trial++) {
    const command = `mkdir made-${trial}`;
    entries.push({ match: [`approval trial ${trial}.`, 'Iteration 1 of'], tool: 'shell', args: { command } });
  }
  entries.push({ match: ['Iteration 2 of'], tool: 'done', args: { summary: 'approval trial done' } });
  return entries;
}

function startWorker(): WorkerProcess {
  return suite.startWorker(undefined, {
    SCRATCHPAD_MODEL: `scripted:${modelFile}`,
    SCRATCHPAD_APPROVE: 'shell',
    SCRATCHPAD_SHELL_ALLOW: 'mkdir,echo',
  });
}

beforeAll(async () => {
  await suite.start();
  const lines = trialScript(TRIALS + SERVER_TRIALS).map((entry) => JSON.stringify(entry));
  fs.writeFileSync(modelFile, `${lines.join('\n')}\n`);
  worker = startWorker();
  await worker.ready;
}, 120_000);
afterAll(() => suite.stop());

async function eventsOf(workflowId: string) {
  return (await suite.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/**
 * The cycle's result; meanwhile a call asked again after its worker died mid-call (its outcome unknown) is denied:
 * an approval is for one run. Says whether one was asked again.
 */
async function resultDenyingReruns(agentId: string): Promise<{ result: CycleResult; askedAgain: boolean }> {
  const agent = suite.client.workflow.getHandle(agentWorkflowId(agentId));
  let result: CycleResult | undefined;
  const ended = retrying(
    () => suite.client.workflow.getHandle(cycleWorkflowId(agentId, 1)).result() as Promise<CycleResult>,
    () => true,
    180_000,
  ).then((value) => (result = value));
  let askedAgain = false;
  while (result === undefined) {
    const calls = await agent.query(approvalsQuery).catch(() => []);
    const again = calls.find((call) => (call.context ?? '').includes('outcome unknown'));
    if (again) {
      const args = { callId: again.callId, decision: 'deny' as const, by: 'fault-trial', reason: 'not again' };
      askedAgain = (await agent.executeUpdate(decideUpdate, { args: [args] }).catch(() => undefined)) !== undefined;
    }
    await Promise.race([ended, sleep(200)]);
  }
  return { result, askedAgain };
}

/** One trial: an agent's call waits, the fault strikes (`point`), a person decides, and the invariants are checked. */
async function approvalTrial(trial: number, point: KillPoint, killAndRestart: () => Promise<void>) {
  const { client } = suite;
  const agentId = `approval-fault-${trial}-${Date.now()}`;
  // Both decisions meet both kill points: approve, approve, deny, deny, ...
  const decision: Decision['decision'] = Math.floor((trial - 1) / 2) % 2 === 0 ? 'approve' : 'deny';
  await signalAgent(client, { agentId, taskQueue: suite.taskQueue }, wakeSignal, [
    { tasks: [`approval trial ${trial}.`] },
  ]);
  const agent = client.workflow.getHandle(agentWorkflowId(agentId));
  const cycleId = cycleWorkflowId(agentId, 1);
  await retrying(
    () => agent.query(approvalsQuery),
    (calls) => calls.length === 1,
  );
  const args = { decision, by: 'fault-trial', ...(decision === 'deny' ? { reason: `not trial ${trial}` } : {}) };
  let decided: Promise<Decision>;
  const killedAt = Date.now();
  if (point === 'approval decide') {
    decided = agent.executeUpdate(decideUpdate, { args: [args] });
    decided.catch(() => undefined);
    await sleep(Math.random() * 150);
    await killAndRestart();
  } else {
    await sleep(Math.random() * 300);
    await killAndRestart();
    decided = retrying(
      () => agent.executeUpdate(decideUpdate, { args: [args] }),
      () => true,
    );
  }
  const restartMs = Date.now() - killedAt;
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const answer = await decided.catch((error: Error) => error);
  const { result, askedAgain } = await resultDenyingReruns(agentId);
  const failure = answer instanceof Error ? ((answer.cause as Error | undefined)?.message ?? answer.message) : '';
  check(!(answer instanceof Error), `decide failed: ${failure}`);
  check(result.outcome === 'completed', `outcome ${result.outcome}`);
  const decisions = askedAgain ? 2 : 1;
  check(result.decisions?.length === decisions, `${result.decisions?.length ?? 0} decisions recorded`);
  check(result.decisions?.[0]?.decision === decision, `decided ${result.decisions?.[0]?.decision}, not ${decision}`);
  const events = await eventsOf(cycleId);
  const scheduled = events.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
  );
  check(scheduled.length === (decision === 'approve' ? 1 : 0), `runTool scheduled ${scheduled.length} times`);
  const ids = new Set(scheduled.map((event) => String(event.eventId)));
  const attempts = events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    return started && ids.has(String(started.scheduledEventId)) ? [started.attempt ?? 1] : [];
  });
  check(
    attempts.every((attempt) => attempt === 1),
    `runTool attempts ${attempts.join(', ')}: an approved call ran again`,
  );
  const made = fs.existsSync(path.join(sandbox, `made-${trial}`));
  // An approved call runs at most once: one its worker died in is reported, not run again (whether it ran is unknown).
  const unfinished = result.after.notes.includes('was approved to run once and did not finish');
  // Asked again only after an unknown outcome, and denied: the call did not run a second time.
  if (askedAgain) {
    check(unfinished, 'asked again about a call that finished');
    check(result.after.notes.includes('A person was asked whether to run it again: denied by fault-trial'), 'rerun');
  }
  if (decision === 'deny') check(!made, 'the denied command ran');
  else if (!unfinished) {
    check(made, 'the approved command did not run');
    // `mkdir` fails when it runs a second time: a success observation means it ran once.
    check(result.after.notes.includes('"exit_code":0'), 'the approved command failed');
  }
  if (decision === 'deny')
    check(result.after.notes.includes(`denied by fault-trial: not trial ${trial}`), 'no denial note');
  const status = await retrying(
    () => agent.query(statusQuery),
    (value) => value.running === null,
  );
  check(status.approvals === undefined, 'the agent still lists a waiting call');
  const applied = events.find(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED && tsToMs(event.eventTime) >= killedAt,
  );
  const recoveryMs = applied ? tsToMs(applied.eventTime) - killedAt : Number.NaN;
  return {
    trial,
    point,
    restartMs,
    recoveryMs,
    outcome: `${result.outcome}/${decision}${unfinished ? ` (unfinished${askedAgain ? ', asked again' : ''})` : ''}`,
    problems,
  } as TrialRecord;
}

describe('a kill during an approval wait', () => {
  it(`runs no call twice and none without a decision, over ${TRIALS} worker kills`, async () => {
    const points: KillPoint[] = ['approval wait', 'approval decide'];
    const records: TrialRecord[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      const point = points[(trial - 1) % points.length] as KillPoint;
      records.push(
        await approvalTrial(trial, point, async () => {
          worker.kill();
          worker = startWorker();
          await worker.ready;
        }),
      );
    }
    process.stdout.write(`\n${report('worker during an approval wait', records)}\n`);
    expect(records.filter((record) => record.problems.length > 0)).toEqual([]);
  });

  it('lands a decision made after the dev server was killed and restarted on its SQLite file mid-wait', async () => {
    const records: TrialRecord[] = [];
    for (let trial = TRIALS + 1; trial <= TRIALS + SERVER_TRIALS; trial++) {
      records.push(
        await approvalTrial(trial, 'approval wait', async () => {
          const old = suite.server;
          process.kill(old.pid, 'SIGKILL');
          await old.stop();
          suite.server = await suite.startServer(portOf(old.address));
        }),
      );
    }
    process.stdout.write(`\n${report('dev server during an approval wait', records)}\n`);
    expect(records.filter((record) => record.problems.length > 0)).toEqual([]);
  });
});
