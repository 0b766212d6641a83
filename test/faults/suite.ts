import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type DevServer, startDevServer } from '../../src/dev-server/dev-server';
import { workflowBundleCode } from '../helpers/workflow-bundle';
import { uniqueTaskQueue } from '../helpers/temporal';
import { SlowServer, WorkerProcess } from './processes';
import {
  type KillPoint,
  type TrialRecord,
  type TrialSetup,
  TOOL_DELAY_MS,
  TRIALS,
  faultScript,
  report,
  runTrial,
} from './trial';

const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');

/** What every fault file shares: a dev server on a SQLite file, the bundle, the script, a slow server, a client. */
export class FaultSuite {
  server!: DevServer;
  client!: Client;
  slow!: SlowServer;
  readonly directory = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-faults-'));
  readonly dbFile = path.join(this.directory, 'temporal.db');
  readonly taskQueue = uniqueTaskQueue('faults');
  private bundlePath = path.join(this.directory, 'workflows.js');
  private connection?: Connection;
  readonly workers: WorkerProcess[] = [];

  async start(): Promise<void> {
    this.server = await this.startServer();
    fs.writeFileSync(this.bundlePath, await workflowBundleCode());
    this.slow = await SlowServer.start(TOOL_DELAY_MS);
    const script = faultScript(this.slow.url).map((entry) => JSON.stringify(entry));
    fs.writeFileSync(path.join(this.directory, 'model.jsonl'), `${script.join('\n')}\n`);
    this.connection = await Connection.connect({ address: this.server.address });
    this.client = new Client({ connection: this.connection });
  }

  /** Starts (or, with the old server's port, restarts) the dev server on the suite's SQLite file. */
  startServer(port?: number): Promise<DevServer> {
    return startDevServer({ dbFile: this.dbFile, port, ui: false, log: () => undefined });
  }

  /**
   * Starts a worker process; `observations` is a SQLite file in the suite's directory unless given, and `env`
   * overrides the rest (another sandbox, model script).
   */
  startWorker(
    observations = path.join(this.directory, 'observations.db'),
    env: Record<string, string> = {},
  ): WorkerProcess {
    const worker = WorkerProcess.start({
      TEMPORAL_ADDRESS: this.server.address,
      SCRATCHPAD_TASK_QUEUE: this.taskQueue,
      SCRATCHPAD_MODEL: `scripted:${path.join(this.directory, 'model.jsonl')}`,
      SCRATCHPAD_HOME: this.directory,
      SCRATCHPAD_SANDBOX: path.join(this.directory, 'sandbox'),
      SCRATCHPAD_OBSERVATIONS: observations,
      // web_fetch denies loopback by default: the slow server is allowed explicitly, address and port.
      SCRATCHPAD_FETCH_ALLOW: '127.0.0.1',
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: '127.0.0.1/32',
      SCRATCHPAD_FETCH_PORTS: new URL(this.slow.url).port,
      FAULT_WORKFLOW_BUNDLE: this.bundlePath,
      ...env,
    });
    this.workers.push(worker);
    return worker;
  }

  /** Runs the trials, prints and saves the table, and returns the records. */
  async run(fault: string, points: KillPoint[], killAndRestart: TrialSetup['killAndRestart']): Promise<TrialRecord[]> {
    const setup = { client: this.client, taskQueue: this.taskQueue, slow: this.slow, killAndRestart };
    const records: TrialRecord[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      records.push(await runTrial(setup, trial, points[(trial - 1) % points.length] as KillPoint));
    }
    const table = report(fault, records);
    process.stdout.write(`\n${table}\n`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, `faults-${fault.replace(/\W+/g, '-')}.txt`), `${table}\n`);
    return records;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
    await this.connection?.close();
    await this.slow?.close();
    await this.server?.stop();
    fs.rmSync(this.directory, { recursive: true, force: true });
  }
}

export function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}
