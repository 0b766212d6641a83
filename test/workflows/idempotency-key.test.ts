import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider, type ScriptEntry } from '../../src/activities/model/scripted';
import { defineTool } from '../../src/activities/tools/define-tool';
import { parseMcpConfig } from '../../src/activities/tools/mcp/config';
import { McpServers } from '../../src/activities/tools/mcp/servers';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { MemoryObservationStore } from '../../src/activities/observations/memory-store';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput, CycleResult } from '../../src/core/cycle/input';
import type { ToolCallInput } from '../../src/core/tools/observation';
import { IDEMPOTENCY_META_KEY } from '../../src/core/tools/idempotency';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { workerSinks } from '../../src/workers/create-worker';
import { uniqueTaskQueue } from '../helpers/temporal';
import { sandboxOptions, useWorkflowEnvironment, TEST_WORKER_THREAD } from '../helpers/worker';
import { WORKER_LIVENESS_OPTIONS } from '../../src/activities/heartbeat';

/*
 * Every tool call carries an idempotency key made in workflow code (core/tools/idempotency.ts): a code tool finds it in
 * its context, an MCP server in the call's `_meta`. A retried attempt carries the key of the attempt before it; another
 * call carries another key.
 */

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

let temporary: string;
let metaFile: string;
let servers: McpServers;
let registry: ToolRegistry;
const codeKeys: string[] = [];

/** A stdio MCP server on the SDK's low-level `Server`: its one tool writes the `_meta` key of each call to a file. */
function metaServerScript(file: string): string {
  const sdk = (name: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${name}`));
  return `
const fs = require('node:fs');
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const server = new Server({ name: 'meta', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'remember', description: 'Writes down the call', inputSchema: { type: 'object', properties: { flaky: { type: 'boolean' } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const key = (request.params._meta ?? {})[${JSON.stringify(IDEMPOTENCY_META_KEY)}] ?? null;
  fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify(key) + '\\n');
  return { content: [{ type: 'text', text: 'remembered' }] };
});
server.connect(new StdioServerTransport());
`;
}

beforeAll(async () => {
  temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-idempotency-'));
  metaFile = path.join(temporary, 'meta-keys.jsonl');
  const script = path.join(temporary, 'meta-server.js');
  fs.writeFileSync(script, metaServerScript(metaFile));
  servers = new McpServers(
    parseMcpConfig({ mcpServers: { meta: { command: process.execPath, args: [script] } } }, 'test'),
  );
  const recordKey = defineTool({
    name: 'record_key',
    description: 'Writes down the call',
    input: { type: 'object', properties: { flaky: { type: 'boolean' } } },
    run: (_args, context) => {
      codeKeys.push(context.idempotencyKey);
      return 'recorded';
    },
  });
  registry = new ToolRegistry([recordKey], servers);
});

afterAll(async () => {
  await registry?.close();
  fs.rmSync(temporary, { recursive: true, force: true });
});

/**
 * The worker's activities, with `runTool` losing the result of a call's first attempt when its arguments say `flaky`:
 * the tool ran, as in a worker that died before it reported, and Temporal runs the call again.
 */
function losingFirstResults(activities: ReturnType<typeof createActivities>) {
  return {
    ...activities,
    async runTool(call: ToolCallInput) {
      const observation = await activities.runTool(call);
      if (call.args.flaky === true && Context.current().info.attempt === 1) {
        throw ApplicationFailure.retryable('the result of the first attempt was lost', 'Test.LostResult');
      }
      return observation;
    },
  };
}

async function runCycle(
  script: ScriptEntry[],
): Promise<{ result: CycleResult; cycleId: string; inputs: ToolCallInput[] }> {
  const model = new ScriptedProvider(script, 'idempotency');
  const resolveModel = createModelResolver({ defaultSpec: 'scripted:test', providers: { 'scripted:test': model } });
  const activities = createActivities({
    resolveModel,
    tools: sandboxOptions(),
    observations: new MemoryObservationStore(),
    toolRegistry: registry,
  });
  const taskQueue = uniqueTaskQueue('idempotency');
  const worker = await Worker.create({
    ...TEST_WORKER_THREAD,
    connection: env.nativeConnection,
    taskQueue,
    ...WORKER_LIVENESS_OPTIONS,
    workflowBundle: bundle,
    activities: losingFirstResults(activities),
    sinks: workerSinks(),
  });
  const agentId = `idempotency-${process.pid}-${Date.now()}`;
  const cycleId = `agent/${agentId}/cycle/1`;
  const before = enqueueTasks(defaultScratchpad('Write things down'), ['Record every call']);
  const result = await worker.runUntil(
    env.client.workflow.execute('agentCycle', {
      taskQueue,
      workflowId: cycleId,
      args: [{ agentId, before, tools: ['record_key', 'meta__remember'] } as CycleInput],
      typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
    }) as Promise<CycleResult>,
  );
  const { events } = await env.client.workflow.getHandle(cycleId).fetchHistory();
  const inputs = (events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const data = scheduled?.input?.payloads?.[0]?.data;
    if (scheduled?.activityType?.name !== 'runTool' || !data) return [];
    return [JSON.parse(Buffer.from(data).toString('utf8')) as ToolCallInput];
  });
  return { result, cycleId, inputs };
}

describe('the idempotency key of a tool call', () => {
  it("reaches a code tool's context and an MCP server's _meta, the same across a retry, another for each call", async () => {
    const { result, cycleId, inputs } = await runCycle([
      { tool: 'record_key', args: {} },
      { tool: 'meta__remember', args: {} },
      { tool: 'record_key', args: { flaky: true } },
      { tool: 'meta__remember', args: { flaky: true } },
      { tool: 'done', args: { summary: 'recorded' } },
    ]);
    expect(result.outcome).toBe('completed');
    const key = (step: number) => `${cycleId}/call/${step}.1`;
    // Steps 3 and 4 ran twice: their first results were lost, and Temporal retried them with the same input.
    expect(codeKeys).toEqual([key(1), key(3), key(3)]);
    const metaKeys = fs
      .readFileSync(metaFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string | null);
    expect(metaKeys).toEqual([key(2), key(4), key(4)]);
    expect(new Set([...codeKeys, ...metaKeys]).size).toBe(4);
    // Made in workflow code: the activity's input in history carries it, so a replay and a new worker see the same.
    expect(inputs.map((input) => input.idempotencyKey)).toEqual([key(1), key(2), key(3), key(4)]);
    expect(result.after.notes).toContain('[TOOL] meta__remember({"flaky":true}) → remembered');
  });
});
