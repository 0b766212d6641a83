import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Agents } from '../../src/clients/agents';
import { cycleWorkflowId } from '../../src/common/ids';
import { traceQuery } from '../../src/common/messages/cycle';
import type { LlamaServer } from '../../src/dev-server/llama-server';
import { CAPS, spec, useLlamaServers } from '../helpers/llama';

/*
 * The memory loop against a real OpenAI-compatible server: llama.cpp's llama-server with SmolLM2-135M-Instruct
 * (test/helpers/llama.ts). The model is tiny and slow on 2 cores: these tests assert protocol and behaviour, never the
 * quality of an answer, and keep caps short. This file: a task loop of several model calls, the longest test, in a
 * file of its own so that jest runs it beside llama-server.test.ts.
 */

// The tiny model is quick, but two cores are shared with the rest of the suite.
jest.setTimeout(600_000);

let env: TestWorkflowEnvironment;
let plain: LlamaServer;
const { modelWorker, newAgent } = useLlamaServers(
  { plain: { contextSize: 4096 } },
  (setup) =>
    ({
      env,
      servers: { plain },
    } = setup),
);

describe('the memory loop on a server without tool calling (#json by the probe)', () => {
  // The grammar holds every reply to a call of an offered tool; what it cannot stop is a tiny model that repeats itself
  // inside a string until the output cap cuts the JSON. So: no parse error but a cut one (README, "Not yet"), which is
  // not asked again with the same cap.
  it('a task cycle of 3 iterations: every reply a call, or cut at the cap', async () => {
    const { worker, taskQueue } = await modelWorker(spec(plain, '#json'));
    const target = { ...newAgent(taskQueue), settings: { maxOutputTokens: CAPS, maxIterations: 3, tools: ['echo'] } };
    const agents = new Agents(env.client);
    await worker.runUntil(async () => {
      const record = await agents.runCycle(target, { tasks: ['Write down that the sky is blue, then finish.'] });
      expect(record.iterations).toBeGreaterThanOrEqual(1);
      // A cut reply is not asked again with the same cap: at most one cap of output per iteration.
      expect(record.usage.outputTokens).toBeLessThanOrEqual(record.iterations * CAPS.task);
      const trace = await env.client.workflow.getHandle(cycleWorkflowId(target.agentId, 1)).query(traceQuery);
      expect(trace.length).toBeGreaterThan(0);
      for (const entry of trace) {
        if (entry.dispatch === 'parse_error') {
          expect(entry.response.stopReason).toBe('length');
          // The note says why the reply holds no call.
          expect(entry.error).toContain('(the reply was cut at the output cap)');
        } else expect(['echo', 'update_scratchpad', 'done']).toContain(entry.action?.tool);
      }
    });
  });
});
