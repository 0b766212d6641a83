import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker, WorkflowBundleOption } from '@temporalio/worker';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { cycleWorkflowId } from '../../src/common/ids';
import { loadConfig } from '../../src/config';
import type { CycleResult } from '../../src/core/cycle/input';
import {
  type LlamaServer,
  type LlamaServerOptions,
  ensureLlamaFiles,
  startLlamaServer,
} from '../../src/dev-server/llama-server';
import { createWorker } from '../../src/workers/create-worker';
import { uniqueId, uniqueTaskQueue } from './temporal';
import { TEST_WORKER_THREAD, useWorkflowEnvironment } from './worker';

/*
 * The real-model tests (test/models/llama-*.test.ts): llama.cpp's llama-server with SmolLM2-135M-Instruct. They are
 * split in two files so that jest runs them on two workers, each file starting only the servers it asks for, each
 * server's threads sleeping while they wait (`--poll 0`): files that generate at once then share the two cores instead
 * of spinning on them. Each server computes on one thread: with one per core (llama.cpp's default) every step waits for
 * the thread that lost its core to the rest of the suite, and generation fell from ~70 tokens a second to 2-5 (one
 * thread keeps ~35 on busy cores). The model's answers depend on the thread count; fixed, they no longer depend on the
 * machine's. `LLAMA_TEST_LOG_DIR=DIR` keeps each server's log there (per request: the prompt tokens it processed,
 * the tokens generated, and how long each took).
 */

export const MODEL = 'smollm2';
/**
 * Short caps: the model is tiny and slow on 2 cores, and the tests assert protocol and behaviour, not answers. A task
 * step's reply is decoded under a grammar, token by token the slowest part, and a tiny model often repeats itself until
 * the cap: 128 tokens end such a reply twice as soon as 256 and still hold a call. Reflect keeps room for its update.
 */
export const CAPS = { respond: 48, reflect: 256, task: 128 };

/** The model spec of `server`, with a protocol suffix (`#json`, `#text`) or none (the worker probes). */
export const spec = (server: LlamaServer, protocol = '') => `openai:${MODEL}@${server.baseURL}${protocol}`;

export interface LlamaSetup<Name extends string> {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleOption;
  /** The command line's home, for tests that run `scratchpad`. */
  home: string;
  servers: Record<Name, LlamaServer>;
}

/**
 * Starts the named servers (and connects to the dev server) before the file's tests, stops them after; `ready`
 * receives them once they run. Returns what the tests build on them.
 */
export function useLlamaServers<Name extends string>(
  settings: Record<Name, Omit<LlamaServerOptions, 'files'>>,
  ready: (setup: LlamaSetup<Name>) => void,
) {
  let setup: Omit<LlamaSetup<Name>, 'servers' | 'home'> | undefined;
  let started: LlamaSetup<Name> | undefined;
  useWorkflowEnvironment((environment) => (setup = environment));
  beforeAll(async () => {
    const files = await ensureLlamaFiles((line) => process.stderr.write(`${line}\n`));
    const names = Object.keys(settings) as Name[];
    const servers = await Promise.all(
      names.map((name) => startLlamaServer({ files, poll: 0, threads: 1, ...settings[name] })),
    );
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'llama-test-'));
    started = {
      ...setup!,
      home,
      servers: Object.fromEntries(names.map((name, index) => [name, servers[index]])) as Record<Name, LlamaServer>,
    };
    ready(started);
  }, 30 * 60_000);
  afterAll(async () => {
    const logDir = process.env.LLAMA_TEST_LOG_DIR;
    if (logDir) {
      for (const [name, server] of Object.entries<LlamaServer>(started?.servers ?? {})) {
        fs.writeFileSync(
          path.join(logDir, `${path.basename(expect.getState().testPath ?? 'llama')}-${name}.log`),
          server.log(),
        );
      }
    }
    await Promise.all(Object.values<LlamaServer>(started?.servers ?? {}).map((server) => server.stop()));
    if (started) fs.rmSync(started.home, { recursive: true, force: true });
  });

  const place = () => {
    if (!started) throw new Error('the llama servers have not started: use them inside a test');
    return started;
  };
  return {
    /**
     * A worker of the project's own (createWorker, on the test's thread) whose default model is `modelSpec`; its lines
     * go to `lines`.
     */
    async modelWorker(modelSpec: string, lines: string[] = []): Promise<{ worker: Worker; taskQueue: string }> {
      const { env, bundle, home } = place();
      const taskQueue = uniqueTaskQueue('llama');
      const config = loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_TASK_QUEUE: taskQueue });
      const worker = await createWorker({
        config: { ...config, TEMPORAL_NAMESPACE: env.namespace ?? 'default' },
        modelSpec,
        connection: env.nativeConnection,
        observations: new MemoryObservationStore(),
        log: (line) => lines.push(line),
        workerOptions: {
          ...TEST_WORKER_THREAD,
          workflowBundle: bundle,
          workflowsPath: undefined,
          bundlerOptions: undefined,
        },
      });
      return { worker, taskQueue };
    },
    /** An agent with short caps and few tools: every offered tool's schema weighs on a tiny model's prompt. */
    newAgent(taskQueue: string, tools: string[] = []) {
      const agentId = uniqueId('llama');
      return { agentId, taskQueue, purpose: 'Remember what the user says', settings: { maxOutputTokens: CAPS, tools } };
    },
    cycleResult(agentId: string, cycle: number): Promise<CycleResult> {
      return place().env.client.workflow.getHandle(cycleWorkflowId(agentId, cycle)).result();
    },
  };
}
