import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { ModelProvider, ProviderRequest } from '../../src/activities/model/provider';
import type { ScriptEntry, ScriptedProvider } from '../../src/activities/model/scripted';
import { parseMcpConfig } from '../../src/activities/tools/mcp/config';
import { McpServers } from '../../src/activities/tools/mcp/servers';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { agentIdKey } from '../../src/common/search-attributes';
import type { CycleInput, CycleResult, TraceEntry } from '../../src/core/cycle/input';
import { traceQuery } from '../../src/common/messages/cycle';
import { defaultScratchpad, enqueueTasks } from '../../src/core/scratchpad/scratchpad';
import { EVERYTHING, MEMORY, freePort, killGroup, startHttpServer } from '../helpers/mcp';
import { scriptedWorker, useWorkflowEnvironment } from '../helpers/worker';
import { uniqueId } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
useWorkflowEnvironment((setup) => ({ env, bundle } = setup));

const CANARY = `canary-${process.pid}-${Date.now()}`;
// In the worker's environment before any server starts: no stdio server may see it.
process.env.SCRATCHPAD_MCP_CANARY = CANARY;

let temporary: string;
let memoryFile: string;
let http: ChildProcess | undefined;
let servers: McpServers;
let registry: ToolRegistry;

beforeAll(async () => {
  temporary = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-mcp-cycle-'));
  memoryFile = path.join(temporary, 'memory.jsonl');
  const port = await freePort();
  http = await startHttpServer(port);
  const config = parseMcpConfig(
    {
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { VISIBLE: 'named-in-config' } },
        memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
        web: { url: `http://127.0.0.1:${port}/mcp` },
      },
    },
    'test config',
  );
  servers = new McpServers(config);
  registry = new ToolRegistry([], servers);
});

afterAll(async () => {
  await registry?.close();
  killGroup(http);
  await fs.rm(temporary, { recursive: true, force: true });
});

/** Stands for the id of the last stored observation, which only the prompt knows. */
const STORED_ID = '{{stored}}';

/** The scripted model, with {@link STORED_ID} in its calls' arguments replaced by the id its prompt shows last. */
function fillingStoredIds(model: ScriptedProvider): ModelProvider {
  return {
    spec: model.spec,
    async complete(request: ProviderRequest, signal?: AbortSignal) {
      const response = await model.complete(request, signal);
      const prompt = JSON.stringify(request.messages);
      const id = [...prompt.matchAll(/scratchpad_id\\":\\"([0-9a-f]{16})/g)].at(-1)?.[1];
      const toolCalls = response.toolCalls.map((call) =>
        id && JSON.stringify(call.input).includes(STORED_ID)
          ? { ...call, input: JSON.parse(JSON.stringify(call.input).replace(STORED_ID, id)) as unknown }
          : call,
      );
      return { ...response, toolCalls };
    },
  };
}

async function run(script: ScriptEntry[], input: Partial<CycleInput> = {}) {
  const setup = await scriptedWorker(
    env,
    bundle,
    script,
    'mcp-tools',
    {},
    { toolRegistry: registry, wrap: fillingStoredIds },
  );
  const agentId = uniqueId('mcp-tools');
  const workflowId = `agent/${agentId}/cycle/1`;
  const before = enqueueTasks(defaultScratchpad('Use the MCP tools'), ['Try the servers']);
  const handle = env.client.workflow.getHandle(workflowId);
  const { result, trace } = await setup.worker.runUntil(async () => {
    const done: CycleResult = await env.client.workflow.execute('agentCycle', {
      taskQueue: setup.taskQueue,
      workflowId,
      args: [{ agentId, before, ...input } as CycleInput],
      typedSearchAttributes: new TypedSearchAttributes([{ key: agentIdKey, value: agentId }]),
    });
    return { result: done, trace: await handle.query(traceQuery) };
  });
  const history = JSON.stringify(await handle.fetchHistory());
  return { result, model: setup.model, history, notes: trace };
}

/** What the model was shown for the first call of `tool` (the trace keeps every observation, notes trim old ones). */
function note(trace: TraceEntry[], tool: string): string {
  const entry = trace.find((candidate) => candidate.action?.tool === tool);
  if (entry?.observation === undefined) throw new Error(`no call of ${tool} in the trace`);
  return `→ ${entry.observation}`;
}

describe('MCP servers as tool sources, through real cycles on the dev server', () => {
  it('offers NAME__TOOL from stdio and HTTP servers and maps text, structured, image and error results', async () => {
    const { result, model, notes } = await run([
      { tool: 'everything__echo', args: { message: 'over stdio' } },
      { tool: 'web__echo', args: { message: 'over http' } },
      { tool: 'everything__get-structured-content', args: { location: 'Chicago' } },
      { tool: 'everything__get-tiny-image', args: {} },
      { tool: 'everything__gzip-file-as-resource', args: { data: 'http://127.0.0.1:1/nothing-here' } },
      { tool: 'everything__get-sum', args: { a: 'one', b: 2 } },
      { tool: 'done', args: { summary: 'tried them' } },
    ]);
    expect(result.outcome).toBe('completed');
    expect(model.requests[0]?.tools).toEqual(
      expect.arrayContaining(['echo', 'everything__echo', 'web__echo', 'memory__create_entities']),
    );
    expect(note(notes, 'everything__echo')).toContain('→ Echo: over stdio');
    expect(note(notes, 'web__echo')).toContain('→ Echo: over http');
    expect(note(notes, 'everything__get-structured-content')).toContain('"structured":{');
    expect(note(notes, 'everything__get-tiny-image')).toMatch(
      /"attachments":\[\{"type":"image","mime_type":"image\/png"/,
    );
    // The server's own error, as an observation the model can act on.
    expect(note(notes, 'everything__gzip-file-as-resource')).toContain('→ ERROR:');
    // Refused by the tool's schema before the server saw it.
    expect(note(notes, 'everything__get-sum')).toContain('→ ERROR: invalid arguments for everything__get-sum');
  });

  it('lands calls in the memory server, offloads a large result and reads it back', async () => {
    const big = Array.from({ length: 800 }, (_, index) => `entry ${index} of a long echo`).join(' ');
    const { result, notes } = await run([
      {
        tool: 'memory__create_entities',
        args: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      },
      { tool: 'everything__echo', args: { message: big } },
      { tool: 'scratchpad_read', args: { scratchpad_id: STORED_ID, mode: 'tail', n: 40 } },
      { tool: 'done', args: { summary: 'remembered Ada' } },
    ]);
    expect(result.outcome).toBe('completed');
    const stored = await fs.readFile(memoryFile, 'utf8');
    expect(stored).toContain('"name":"Ada"');
    expect(note(notes, 'everything__echo')).toContain('scratchpad_id');
    expect(note(notes, 'scratchpad_read')).toContain('entry 799 of a long echo');
  });

  it('restarts a stdio server killed mid-call and keeps the worker environment from servers and history', async () => {
    let killed = false;
    const killer = setInterval(() => {
      const pid = servers.pidOf('everything');
      if (!killed && pid !== undefined && callStarted) {
        process.kill(pid, 'SIGKILL');
        killed = true;
      }
    }, 100);
    let callStarted = false;
    const started = setTimeout(() => (callStarted = true), 1500);
    try {
      const { result, notes, history } = await run([
        { tool: 'everything__trigger-long-running-operation', args: { duration: 4, steps: 4 } },
        { tool: 'everything__get-env', args: {} },
        { tool: 'done', args: { summary: 'survived' } },
      ]);
      expect(killed).toBe(true);
      expect(result.outcome).toBe('completed');
      expect(note(notes, 'everything__trigger-long-running-operation')).toContain('Long running operation completed');
      const environment = note(notes, 'everything__get-env');
      expect(environment).toContain('named-in-config');
      expect(environment).not.toContain(CANARY);
      expect(history).not.toContain(CANARY);
    } finally {
      clearInterval(killer);
      clearTimeout(started);
    }
  });
});
