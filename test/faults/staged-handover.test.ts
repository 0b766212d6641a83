import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startStaged } from '../../src/clients/staged-runs';
import { stagedProgressQuery } from '../../src/common/messages/staged';
import type { ScriptEntry } from '../../src/activities/model/scripted';
import { type RedisServerHandle, startRedisServer } from '../helpers/redis-server';
import type { WorkerProcess } from './processes';
import { FaultSuite } from './suite';

/*
 * A staged run whose worker is SIGKILLed during verification, with each worker host's own sandbox: the worker that
 * takes over has none of the stage's files on its disk, only the observation store (a real redis-server) they share.
 */

const BINARY = process.env.REDIS_SERVER_BINARY ?? 'redis-server';
const EventType = temporal.api.enums.v1.EventType;
const PendingActivityState = temporal.api.enums.v1.PendingActivityState;

const SUM = 'exports.sum = (a, b) => a + b;\n';
const TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../lib/sum.js');\n" +
  "test('adds', () => assert.strictEqual(sum(2, 3), 5));\n";
// Long enough to be killed in; it fails unless both files are in the sandbox it runs in.
const VERIFY = 'sleep 5 && node --test test/sum.test.js';

// Matched by prompt, so whichever worker answers does as the other would; a repair stage has no answer (and fails).
const SCRIPT: ScriptEntry[] = [
  {
    match: ['Stage 1 of 1', 'Iteration 1 of'],
    tool: 'write_files',
    args: {
      files: [
        { path: 'lib/sum.js', content: SUM },
        { path: 'test/sum.test.js', content: TEST },
      ],
    },
  },
  { match: ['Stage 1 of 1', 'Iteration 2 of'], tool: 'done', args: { summary: 'sum module and its test written' } },
];

const suite = new FaultSuite();
let redis: RedisServerHandle;
const sandboxA = path.join(suite.directory, 'host-a', 'sandbox');
const sandboxB = path.join(suite.directory, 'host-b', 'sandbox');

function startWorker(sandbox: string): WorkerProcess {
  const model = path.join(suite.directory, 'staged-model.jsonl');
  return suite.startWorker(redis.url, { SCRATCHPAD_SANDBOX: sandbox, SCRATCHPAD_MODEL: `scripted:${model}` });
}

beforeAll(async () => {
  redis = await startRedisServer(BINARY);
  await suite.start();
  const lines = SCRIPT.map((entry) => JSON.stringify(entry));
  fs.writeFileSync(path.join(suite.directory, 'staged-model.jsonl'), `${lines.join('\n')}\n`);
}, 120_000);
afterAll(async () => {
  await suite.stop();
  await redis?.stop();
});

async function verificationStarted(handle: WorkflowHandle): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const { raw } = await handle.describe();
    const pending = raw.pendingActivities ?? [];
    const started = pending.some(
      (activity) =>
        activity.activityType?.name === 'runVerification' &&
        activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    );
    if (started) return;
    await sleep(100);
  }
  throw new Error('verification never started');
}

describe('a staged run whose worker is killed during verification, each worker with its own sandbox', () => {
  it('is verified by the other worker, which restores the stage files from the shared store', async () => {
    const writer = startWorker(sandboxA);
    await writer.ready;
    const agentId = `handover-${process.pid}`;
    const input = { agentId, task: 'Write a sum module', staged: false, verify: VERIFY, maxRepairs: 1 };
    const handle = await startStaged(suite.client, suite.taskQueue, input, 1);
    await verificationStarted(handle);
    expect(fs.readFileSync(path.join(sandboxA, 'lib', 'sum.js'), 'utf8')).toBe(SUM);
    expect(fs.existsSync(path.join(sandboxB, 'lib', 'sum.js'))).toBe(false);

    const successor = startWorker(sandboxB);
    await successor.ready;
    expect((await handle.query(stagedProgressQuery)).phase).toBe('verifying');
    writer.kill();

    const result = await handle.result();
    expect(result).toMatchObject({ outcome: 'verified', files: ['lib/sum.js', 'test/sum.test.js'] });
    expect(result.verifications.map((verification) => verification.passed)).toEqual([true]);
    expect(result.stageFiles?.map((file) => file.path)).toEqual(['lib/sum.js', 'test/sum.test.js']);
    expect(fs.readFileSync(path.join(sandboxB, 'lib', 'sum.js'), 'utf8')).toBe(SUM);
    expect(fs.readFileSync(path.join(sandboxB, 'test', 'sum.test.js'), 'utf8')).toBe(TEST);

    // The passing attempt was the second: the first died with the writer.
    const history = await handle.fetchHistory();
    const attempts = (history.events ?? [])
      .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
      .map((event) => event.activityTaskStartedEventAttributes?.attempt);
    expect(attempts.at(-1)).toBe(2);
  });
});
