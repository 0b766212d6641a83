import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type DevServer, startDevServer } from '../../src/dev-server/dev-server';
import { ensureTemporalCli } from '../../src/dev-server/provision';
import { uniqueId } from '../helpers/temporal';

const LOAD_MS = 20_000;
const CALLERS = 16;

/*
 * Calls whose deadline passes while the server is reading for them: the Temporal CLI's own SQLite driver (v1.5.1
 * pins modernc.org/sqlite v1.34.1) then left its one connection interrupted for good, and every later call failed with
 * "interrupted (9)"; a full `npm test` on a loaded machine did that once. The CLI the project builds has a newer driver.
 * Against the stock v1.5.1 build this load wedged the server within seconds.
 */
describe('the dev server under calls cancelled mid-query', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-cancelled-'));
  let server: DevServer;
  let connection: Connection;
  let cli: string;

  beforeAll(async () => {
    // The CLI a user of this machine gets (scratchpad's own build unless a `temporal` is on PATH or configured).
    cli = await ensureTemporalCli({ log: () => undefined });
    server = await startDevServer({
      cliPath: cli,
      dbFile: path.join(directory, 'temporal.db'),
      logFile: path.join(directory, 'temporal.log'),
      sqlitePragmas: { journal_mode: 'WAL', synchronous: 'NORMAL' },
      ui: false,
      log: () => undefined,
    });
    // No retry interceptor: a server failing calls says so at once, rather than as a retried call's deadline.
    connection = await Connection.connect({ address: server.address, interceptors: [] });
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('still answers every call afterwards', async () => {
    const client = new Client({ connection });
    const end = Date.now() + LOAD_MS;
    const outcomes = { answered: 0, cut: 0, limited: 0, other: [] as string[] };
    const call = (n: number): Promise<unknown> => {
      switch (n % 3) {
        case 0:
          return client.workflow.start('nothing', { taskQueue: 'no-worker', workflowId: uniqueId('cancelled') });
        case 1:
          return connection.workflowService.describeNamespace({ namespace: 'default' });
        default:
          return connection.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 50 });
      }
    };
    let issued = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (Date.now() < end) {
          // 1-30 ms: long enough for many calls to reach the database, short enough for many to be cut there.
          const deadline = Date.now() + 1 + Math.floor(Math.random() * 30);
          try {
            await connection.withDeadline(deadline, () => call(issued++));
            outcomes.answered++;
          } catch (error) {
            const message = (error as Error).message;
            // A call whose deadline has passed was cut, whatever the server managed to answer by then; the namespace's
            // rate limit (visibility calls especially) refusing some is the server answering.
            if (Date.now() >= deadline) outcomes.cut++;
            else if (message.startsWith('8 RESOURCE_EXHAUSTED')) outcomes.limited++;
            else outcomes.other.push(message);
          }
        }
      }),
    );
    const log = fs.readFileSync(path.join(directory, 'temporal.log'), 'utf8');
    const interrupted = log.split('\n').filter((line) => line.includes('interrupted (9)')).length;
    process.stdout.write(
      `cancelled calls (${cli}): ${outcomes.answered} answered, ${outcomes.cut} cut at their deadline, ` +
        `${outcomes.limited} refused by the rate limit, ` +
        `${outcomes.other.length} failed otherwise; "interrupted (9)" ${interrupted} times in the server log\n`,
    );
    // The load did what it is for: calls cut at their deadline, by the hundred; the server failed none otherwise.
    expect(outcomes.cut).toBeGreaterThan(500);
    expect([...new Set(outcomes.other)]).toEqual([]);

    const probe = () =>
      connection.withDeadline(Date.now() + 10_000, () =>
        connection.workflowService.describeNamespace({ namespace: 'default' }),
      );
    for (let i = 0; i < 3; i++) await expect(probe()).resolves.toBeDefined();
    const handle = await client.workflow.start('nothing', { taskQueue: 'no-worker', workflowId: uniqueId('after') });
    await expect(handle.describe()).resolves.toMatchObject({ status: { name: 'RUNNING' } });
  }, 120_000);
});
