import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';
import OpenAI from 'openai';
import { bundleWorkflowCode } from '@temporalio/worker';
import { Agents } from '../src/clients/agents';
import { MemoryObservationStore } from '../src/activities/observations/memory-store';
import { loadConfig } from '../src/config';
import { ensureLlamaFiles, startLlamaServer } from '../src/dev-server/llama-server';
import { createWorker, workflowBundleOptions } from '../src/workers/create-worker';
import { historyStats } from './history-stats';
import { formatMs, median, progress, table } from './measure';
import { type Cleanup, connectTarget, openTemporalTarget, quietBundlerLogger, runBenchmark } from './temporal-target';

/*
 * Streamed replies (issue 31), in one run against one llama.cpp server (SmolLM2-135M, as the tests use):
 * - time to first token through the agent (`Agents.stream`, from the call to the first text event) against a direct
 *   `openai` SDK call that sends the very request the agent's respond sent (recorded by a proxy in between), from the
 *   call to the first content delta. Both with the server's prompt cache off, so each pays for its whole prompt.
 *   Goal: agent ≤ 1.2 × direct + 100 ms.
 * - history bytes of a streamed turn's cycle against the same turn not streamed (`Agents.send`): fresh agents, one
 *   message, temperature 0, so both replies are the same text.
 */

const USAGE = `usage: node dist/bench/stream.js [--runs R] [--address [host:port]]
  --runs R      turns measured each way; medians are reported (default 5, after one warm-up)
  --address     use the Temporal server at host:port instead of starting a dev server`;
const MESSAGE = 'My name is Ada and I live in Lisbon. I like green tea. Tell me about Lisbon.';
const MODEL = 'smollm2';

function parseOptions(argv: readonly string[]) {
  const options = { runs: 5, address: undefined as string | undefined, namespace: 'default' };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--runs') {
      options.runs = Number(argv[++index]);
      if (!Number.isInteger(options.runs) || options.runs < 1 || options.runs > 100) throw new Error(USAGE);
    } else if (flag === '--address') {
      const next = argv[index + 1];
      options.address = next && !next.startsWith('--') ? argv[++index] : 'localhost:7233';
    } else throw new Error(`unknown argument "${flag}"\n${USAGE}`);
  }
  return options;
}

/**
 * A pass-through to the model server that turns its prompt cache off in every chat request and keeps the bodies, so
 * the direct call can send exactly what the agent sent.
 */
async function recordingProxy(target: string, cleanups: Cleanup[]) {
  const bodies: Record<string, unknown>[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      let body = text;
      if (request.method === 'POST' && request.url?.endsWith('/chat/completions')) {
        const parsed = { ...JSON.parse(text), cache_prompt: false };
        bodies.push(parsed);
        body = JSON.stringify(parsed);
      }
      // A connection per request: one kept alive across requests may be closed by the server while it idles.
      const upstream = http.request(`${target}${request.url}`, {
        agent: false,
        method: request.method,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      upstream.on('response', (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', (error) => {
        progress(`proxy: ${error.message}`);
        response.destroy();
      });
      response.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

/**
 * Milliseconds from the call to the first content delta of `body`, sent with the SDK straight to the server. Its
 * system prompt opens with a line of its own, so not even a prefix of it is in the server's cache (the agent's request
 * went just before, and `cache_prompt: false` is the server's to honour).
 */
async function directFirstToken(client: OpenAI, body: Record<string, unknown>, run: number): Promise<number> {
  const params = body as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
  const [system, ...rest] = params.messages;
  const fresh = { ...system, content: `Run ${run}.\n${String(system?.content ?? '')}` } as typeof system;
  const start = performance.now();
  const stream = await client.chat.completions.create({ ...params, messages: [fresh!, ...rest], stream: true });
  let first: number | undefined;
  for await (const chunk of stream) {
    if (first === undefined && chunk.choices[0]?.delta?.content) first = performance.now() - start;
  }
  return first ?? Number.NaN;
}

async function run(options: ReturnType<typeof parseOptions>, cleanups: Cleanup[]): Promise<boolean> {
  const files = await ensureLlamaFiles((line) => progress(`llama: ${line}`));
  const llama = await startLlamaServer({ files, contextSize: 4096 });
  cleanups.push(() => llama.stop());
  const proxy = await recordingProxy(llama.baseURL.replace(/\/v1$/, ''), cleanups);
  progress('bundling the workflows');
  const workflowBundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietBundlerLogger });
  const target = await openTemporalTarget({ ...options, iterations: 1 });
  cleanups.push(() => target.stop());
  const context = await connectTarget(target, cleanups);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-bench-stream-'));
  const taskQueue = `bench-stream-${process.pid}`;
  const config = loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_TASK_QUEUE: taskQueue });
  const worker = await createWorker({
    config: { ...config, TEMPORAL_NAMESPACE: context.namespace },
    modelSpec: `openai:${MODEL}@${proxy.url}#json`,
    connection: context.connection,
    observations: new MemoryObservationStore(),
    log: (line) => progress(line),
    workerOptions: { workflowBundle, workflowsPath: undefined, bundlerOptions: undefined },
  });
  const direct = new OpenAI({ baseURL: llama.baseURL, apiKey: 'none', maxRetries: 0 });
  const agents = new Agents(context.client);
  const samples = { agent: [] as number[], direct: [] as number[], streamed: [] as number[], whole: [] as number[] };
  const replies = { streamed: [] as number[], whole: [] as number[] };
  await worker.runUntil(async () => {
    for (let index = 0; index <= options.runs; index++) {
      const settings = { tools: ['echo'], maxOutputTokens: { respond: 64, reflect: 64, task: 64 } };
      const agent = (name: string) => ({ agentId: `bench-${name}-${index}-${process.pid}`, taskQueue, settings });
      const before = proxy.bodies.length;
      const start = performance.now();
      const stream = agents.stream(agent('stream'), { message: MESSAGE });
      let first: number | undefined;
      for await (const event of stream)
        if (first === undefined && event.type === 'text') first = performance.now() - start;
      const streamed = await stream.result;
      await agents.waitForCycle(agent('stream'), streamed.cycleId);
      // The turn's first chat request after the probe: respond.
      const respond = proxy.bodies.slice(before).find((body) => JSON.stringify(body).includes('Tell me about Lisbon'));
      const directMs = await directFirstToken(direct, respond ?? {}, index);
      const whole = await agents.send(agent('whole'), { message: MESSAGE });
      await agents.waitForCycle(agent('whole'), whole.cycleId);
      const bytes = [
        (await historyStats(context.client, streamed.cycleId)).bytes,
        (await historyStats(context.client, whole.cycleId)).bytes,
      ];
      const label = index === 0 ? 'warm-up' : `${index}/${options.runs}`;
      progress(
        `turn ${label}: first token ${formatMs(first ?? NaN)} ms through the agent, ${formatMs(directMs)} ms direct; ` +
          `history ${bytes[0]} B streamed, ${bytes[1]} B not (replies ${streamed.reply.length}, ${whole.reply.length} chars)`,
      );
      if (index === 0) continue;
      samples.agent.push(first ?? Number.NaN);
      samples.direct.push(directMs);
      samples.streamed.push(bytes[0]!);
      samples.whole.push(bytes[1]!);
      replies.streamed.push(streamed.reply.length);
      replies.whole.push(whole.reply.length);
    }
  });
  const [agentMs, directMs] = [median(samples.agent), median(samples.direct)];
  const [streamedBytes, wholeBytes] = [median(samples.streamed), median(samples.whole)];
  const allowed = 1.2 * directMs + 100;
  console.log(
    table([
      ['measure', 'direct / not streamed', 'through the agent / streamed', 'ratio'],
      ['first token ms', formatMs(directMs), formatMs(agentMs), `${(agentMs / directMs).toFixed(2)}×`],
      ['history bytes', String(wholeBytes), String(streamedBytes), `${(streamedBytes / wholeBytes).toFixed(2)}×`],
      ['reply chars', String(median(replies.whole)), String(median(replies.streamed)), ''],
    ]),
  );
  const met = agentMs <= allowed;
  console.log(
    `Goal: first token through the agent ≤ 1.2 × direct + 100 ms = ${formatMs(allowed)} ms: ${met ? 'met' : 'NOT met'}. ` +
      `A streamed turn's history: ${streamedBytes - wholeBytes} B more than the same turn not streamed.`,
  );
  console.log(
    JSON.stringify({ benchmark: 'stream', runs: options.runs, agentMs, directMs, streamedBytes, wholeBytes }),
  );
  return met;
}

runBenchmark((cleanups) => run(parseOptions(process.argv.slice(2)), cleanups));
