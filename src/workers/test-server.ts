import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { ScriptedProvider } from '../activities/model/scripted';
import { MemoryObservationStore } from '../activities/observations/memory-store';
import type { ToolOptions } from '../activities/tools/types';
import { startDevServer } from '../dev-server/dev-server';
import { startTelemetry, telemetryWorkflowModules } from '../telemetry';
import { workflowCode } from './bundle-cache';
import { ScratchpadPlugin } from './plugin';
import type { ToolInput } from './tool-sources';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** A server already running (`host:port`, with this package's search attributes) to use instead of starting one. */
  address?: string;
  namespace?: string;
  /** Where the server's start-up lines go; stderr by default. */
  log?: (line: string) => void;
}

/** Options of {@link TestServer.runWorker}. */
export interface TestWorkerOptions {
  /** The model of every agent that names none (the worker's default model). */
  model: ScriptedProvider;
  /** The agents' own tools, made with `defineTool`. */
  tools?: readonly ToolInput[];
  /** Limits of the built-in tools; by default a fresh sandbox folder, `echo` the only shell command, no network. */
  toolLimits?: Partial<ToolOptions>;
  /** The task queue to poll; by default a fresh one, so workers of different tests never take each other's tasks. */
  taskQueue?: string;
}

/** A Temporal server for tests, with a client of it and a way to run a scripted worker against it. */
export interface TestServer {
  address: string;
  namespace: string;
  /** A client of the server, for the facades (`new Agents(server.client)`). */
  client: Client;
  /**
   * Runs a worker (the plugin with the scripted model and an in-memory observation store) while `run` runs, then
   * shuts it down; `run` gets the worker's task queue, for the agents it starts.
   */
  runWorker<T>(options: TestWorkerOptions, run: (taskQueue: string) => Promise<T>): Promise<T>;
  /** Closes the connections and stops the server this call started (a server given by `address` keeps running). */
  stop(): Promise<void>;
}

/**
 * A Temporal server for tests: the Temporal CLI's dev server, in memory, provisioned and started as `scratchpad
 * server start` does (found on PATH or in the cache, else downloaded or built), or the one at `options.address`.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const namespace = options.namespace ?? 'default';
  const server = options.address
    ? undefined
    : await startDevServer({ ui: false, namespace, ...(options.log && { log: options.log }) });
  const address = options.address ?? server!.address;
  try {
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    const client = new Client({ connection, namespace });
    return {
      address,
      namespace,
      client,
      runWorker: (workerOptions, run) => runWorker(native, namespace, workerOptions, run),
      async stop() {
        await native.close();
        await connection.close();
        await server?.stop();
      },
    };
  } catch (error) {
    await server?.stop();
    throw error;
  }
}

async function runWorker<T>(
  connection: NativeConnection,
  namespace: string,
  options: TestWorkerOptions,
  run: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-test-sandbox-'));
  try {
    const worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      // The bundle `createWorker` runs, kept between runs: the plugin alone would run webpack for every worker.
      ...(await workflowCode(startTelemetry() ? telemetryWorkflowModules() : [])),
      plugins: [
        new ScratchpadPlugin({
          model: options.model.spec,
          providers: { [options.model.spec]: options.model },
          toolLimits: {
            sandboxRoot,
            shellAllow: ['echo'],
            shellTimeoutMs: 5000,
            fetchAllowHosts: [],
            fetchMaxBytes: 1 << 20,
            ...options.toolLimits,
          },
          tools: options.tools ?? [],
          observations: new MemoryObservationStore(),
          deployment: false,
        }),
      ],
    });
    return await worker.runUntil(run(taskQueue));
  } finally {
    fs.rmSync(sandboxRoot, { recursive: true, force: true });
  }
}
