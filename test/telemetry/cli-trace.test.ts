import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../helpers/cli';
import { uniqueId, waitFor } from '../helpers/temporal';
import { type Jaeger, startJaeger } from '../../src/dev-server/jaeger';

jest.setTimeout(180_000);

let jaeger: Jaeger;
let home: string;

beforeAll(async () => {
  jaeger = await startJaeger();
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-telemetry-cli-'));
});

afterAll(async () => {
  await jaeger?.stop();
});

describe('scratchpad send with the OTEL_* variables set', () => {
  it('is one trace from the command to the activities, with message text only on opt-in', async () => {
    const service = uniqueId('scratchpad-cli');
    const agent = uniqueId('cli-traced');
    const script = path.join(home, 'script.jsonl');
    const lines = [
      { tool: 'echo', args: { message: 'checking' } },
      { text: 'Hello, Ada. I will remember MANGO-42.' },
      { tool: 'update_scratchpad', args: { identity_user: 'Ada (MANGO-42)' } },
    ];
    await fs.writeFile(script, lines.map((line) => JSON.stringify(line)).join('\n'));
    const sent = await runCli(['send', agent, 'I am Ada; remember MANGO-42.'], {
      home,
      taskQueue: uniqueId('cli-telemetry'),
      env: {
        SCRATCHPAD_MODEL: `scripted:${script}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: service,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    });
    expect(sent).toMatchObject({ code: 0, stdout: 'Hello, Ada. I will remember MANGO-42.\n' });

    // The command flushed its spans before it exited.
    const spans = await waitFor(
      () => jaeger.spans(service),
      (found) => found.some((span) => span.name === 'scratchpad send'),
      { timeoutMs: 15_000, what: "the command's spans in jaeger" },
    );
    const root = spans.find((span) => span.name === 'scratchpad send')!;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.resource).toMatchObject({ 'deployment.environment.name': 'test' });
    const trace = spans.filter((span) => span.traceId === root.traceId);
    expect(trace.map((span) => span.name)).toEqual(
      expect.arrayContaining([
        'RunWorkflow:agentCycle',
        `invoke_agent ${agent}`,
        'RunActivity:callModel',
        'chat ' + script,
        'execute_tool echo',
        'update_memory',
      ]),
    );
    // The agent's handling of the command's update (send, or a streamed turn's start) is in the same trace.
    expect(trace.some((span) => span.name.startsWith('HandleUpdate:'))).toBe(true);
    // Opted in: the user's message, the model's reply, the tool's arguments and the memory update are there.
    const tags = (name: string) => trace.find((span) => span.name === name)?.tags ?? {};
    expect(String(tags(`invoke_agent ${agent}`)['gen_ai.input.messages'])).toContain('remember MANGO-42');
    expect(String(tags(`invoke_agent ${agent}`)['gen_ai.output.messages'])).toContain('I will remember MANGO-42');
    expect(String(tags('execute_tool echo')['gen_ai.tool.call.arguments'])).toContain('checking');
    expect(String(tags('execute_tool echo')['gen_ai.tool.call.result'])).toContain('ECHO: checking');
    expect(String(tags('update_memory')['gen_ai.memory.content'])).toContain('MANGO-42');
    const chats = trace.filter((span) => span.name === `chat ${script}`);
    expect(chats.some((span) => String(span.tags['gen_ai.input.messages']).includes('remember MANGO-42'))).toBe(true);
    expect(chats.some((span) => String(span.tags['gen_ai.output.messages']).includes('Hello, Ada'))).toBe(true);
    // Never a key or token: none is configured here, and the environment is not on any span.
    expect(JSON.stringify(trace)).not.toMatch(/OTEL_|API_KEY|ENCRYPTION/);
  });
});
