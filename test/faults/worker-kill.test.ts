import { FaultSuite } from './suite';
import type { WorkerProcess } from './processes';

const suite = new FaultSuite();
let worker: WorkerProcess;

beforeAll(async () => {
  await suite.start();
  worker = suite.startWorker();
  await worker.ready;
}, 120_000);
afterAll(() => suite.stop());

describe('a worker killed with SIGKILL', () => {
  it('loses nothing and doubles nothing; a new worker started at once resumes the cycle in seconds', async () => {
    const records = await suite.run('worker', ['model call', 'tool call', 'between iterations'], async () => {
      worker.kill();
      worker = suite.startWorker();
    });
    expect(records.filter((record) => record.problems.length > 0)).toEqual([]);
    // Without heartbeats a model call is retried only at its start-to-close timeout (minutes).
    expect(Math.max(...records.map((record) => record.recoveryMs))).toBeLessThan(60_000);
  });
});
