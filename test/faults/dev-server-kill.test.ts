import { FaultSuite, portOf } from './suite';

const suite = new FaultSuite();

beforeAll(async () => {
  await suite.start();
  await suite.startWorker().ready;
}, 120_000);
afterAll(() => suite.stop());

describe('the dev server killed with SIGKILL', () => {
  it('restarted on the same SQLite file and port, every cycle ends once with nothing lost or doubled', async () => {
    const records = await suite.run('dev server', ['model call', 'tool call', 'between iterations'], async () => {
      const old = suite.server;
      process.kill(old.pid, 'SIGKILL');
      await old.stop();
      suite.server = await suite.startServer(portOf(old.address));
    });
    expect(records.filter((record) => record.problems.length > 0)).toEqual([]);
  });
});
