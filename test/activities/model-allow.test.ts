import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ModelResolverOptions, createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { ModelError } from '../../src/common/failure-types';
import type { ModelRequest } from '../../src/core/cycle/model';
import { failureOf, runCallModel } from './call-model';
import { type HttpStub, startHttpStub } from './http-stub';
import { type CountingServer, startCountingServer } from '../helpers/counting-server';

function request(model?: string): ModelRequest {
  return {
    system: 'cycle',
    messages: [{ role: 'user', content: 'hello' }],
    tools: [],
    toolChoice: 'auto',
    ...(model && { model }),
  } as ModelRequest;
}

/** A worker whose default is a scripted model, configured as `options` says. */
function resolver(options: Partial<ModelResolverOptions> = {}) {
  const scripted = new ScriptedProvider([{ text: 'default answers' }], 'test');
  return createModelResolver({ defaultSpec: 'scripted:test', providers: { 'scripted:test': scripted }, ...options });
}

function completion(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'served',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  };
}

let foreign: CountingServer;
let stub: HttpStub;
let directory: string;

beforeAll(async () => {
  foreign = await startCountingServer();
  stub = await startHttpStub();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'model-allow-'));
});
afterAll(async () => {
  await foreign.close();
  await stub.close();
});
beforeEach(() => stub.reset());

describe('a worker resolves only the model specs its configuration allows', () => {
  it('refuses a spec a request names, in one line, before anything is fetched', async () => {
    const spec = `openai:x@${foreign.url}/anything`;
    const failure = await failureOf(runCallModel(resolver(), request(spec)));

    expect(failure).toMatchObject({ type: ModelError.NotAllowed, nonRetryable: true });
    expect(failure.message).toBe(
      `model "${spec}" is not allowed on this worker: allowed are scripted:test; add it to SCRATCHPAD_MODELS`,
    );
    expect(foreign.requests).toBe(0);
  });

  it('refuses a script file a request names without quoting it, and cuts what it quotes of the spec', async () => {
    const file = path.join(directory, 'worker-local.env');
    fs.writeFileSync(file, 'API_TOKEN=SECRET-FIRST-LINE\nOTHER=1\n');
    const failure = await failureOf(runCallModel(resolver(), request(`scripted:${file}`)));

    expect(failure.type).toBe(ModelError.NotAllowed);
    expect(failure.message).toContain(`model "scripted:${file}" is not allowed`);
    expect(failure.message).not.toContain('SECRET');
    const userinfo = await failureOf(runCallModel(resolver(), request('openai:m@http://user:pw@h/v1')));
    expect(userinfo.message).toContain('model "openai:m@http://***@h/v1" is not allowed');
    const long = await failureOf(runCallModel(resolver(), request(`openai:${'m'.repeat(5000)}@${foreign.url}/v1`)));
    expect(long.message.length).toBeLessThan(200);
  });

  it('names a script file that is not a script by line number only, even when allowed', async () => {
    const file = path.join(directory, 'not-a-script.env');
    fs.writeFileSync(file, '// a comment\nAPI_TOKEN=SECRET-LINE-TWO\n');
    const unknownField = path.join(directory, 'unknown-field.jsonl');
    fs.writeFileSync(unknownField, '{"text": "hi", "SECRET_FIELD": 1}\n');
    const allowed = resolver({ models: [`scripted:${file}`, `scripted:${unknownField}`] });

    const notJson = await failureOf(runCallModel(allowed, request(`scripted:${file}`)));
    expect(notJson.type).toBe(ModelError.NotConfigured);
    expect(notJson.message).toContain(`${file} line 2: not JSON`);
    expect(notJson.message).not.toContain('SECRET');
    const notEntry = await failureOf(runCallModel(allowed, request(`scripted:${unknownField}`)));
    expect(notEntry.message).toContain(`${unknownField} line 1: a field scripts do not have`);
    expect(notEntry.message).not.toContain('SECRET');
  });

  it('openai:*@URL serves any model at that base URL and nowhere else', async () => {
    const allowed = resolver({ models: [`openai:*@${stub.url}/v1`] });
    stub.reply({ body: completion('from the allowed server') });

    // A wildcard without `#...` allows any protocol; `#text` spares the request the probe a spec without one sends.
    const response = await runCallModel(allowed, request(`openai:any-model@${stub.url}/v1#text`));
    expect(response.text).toBe('from the allowed server');
    expect(stub.received).toHaveLength(1);
    expect((stub.received[0]?.body as { model: string }).model).toBe('any-model');
    const elsewhere = await failureOf(runCallModel(allowed, request(`openai:any-model@${foreign.url}/v1`)));
    expect(elsewhere.type).toBe(ModelError.NotAllowed);
    expect(elsewhere.message).toContain(`allowed are scripted:test, openai:*@${stub.url}/v1;`);
    expect(foreign.requests).toBe(0);
  });

  it("anthropic:* serves any Anthropic model at the worker's own endpoint, through the real SDK", async () => {
    const anthropic = { anthropicApiKey: 'sk-test', anthropicBaseURL: stub.url };
    const message = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text: 'from Anthropic', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 2 },
    };
    stub.reply({ body: message });

    const response = await runCallModel(
      resolver({ ...anthropic, models: ['anthropic:*'] }),
      request('anthropic:claude-haiku-4-5'),
    );
    expect(response.text).toBe('from Anthropic');
    expect(stub.received[0]?.url).toBe('/v1/messages');
    expect((stub.received[0]?.body as { model: string }).model).toBe('claude-haiku-4-5');
    const refused = await failureOf(runCallModel(resolver(anthropic), request('anthropic:claude-haiku-4-5')));
    expect(refused.type).toBe(ModelError.NotAllowed);
    expect(stub.received).toHaveLength(1);
  });

  it('allows what it serves: its default, its providers, the specs registered later', async () => {
    const resolve = resolver();
    expect((await runCallModel(resolve, request())).text).toBe('default answers');
    resolve.register('scripted:late', new ScriptedProvider([{ text: 'late' }], 'late'));
    expect((await runCallModel(resolve, request('scripted:late'))).text).toBe('late');
  });

  it('refuses a bad entry of its list when it is made', () => {
    expect(() => resolver({ models: ['anthropic:claude-*'] })).toThrow(/wildcard stands only for a whole spec/);
  });
});

describe('provider errors quote a short, one-line excerpt of what the server said', () => {
  it('an OpenAI-compatible server', async () => {
    const body = `<html>\n<body>\u001b[2J${'x'.repeat(150)} SECRET-AFTER-150</body>\n</html>`;
    stub.reply({ status: 404, headers: { 'content-type': 'text/html' }, body });
    const spec = `openai:m@${stub.url}/v1`;

    const failure = await failureOf(runCallModel(resolver({ models: [spec] }), request(spec)));
    expect(failure.type).toBe(ModelError.NotFound);
    expect(failure.message).toMatch(/^HTTP 404 from openai:m@\S+: 404 <html> <body> \[2Jx+…$/);
    expect(failure.message).not.toContain('SECRET');
    expect(failure.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('the Anthropic API, in the message and in the cause kept beside it', async () => {
    const text = `overloaded\n${'y'.repeat(200)} SECRET-IN-BODY`;
    stub.reply({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: text } } });
    const spec = 'anthropic:claude-sonnet-4-6';

    const failure = await failureOf(
      runCallModel(resolver({ defaultSpec: spec, anthropicApiKey: 'k', anthropicBaseURL: stub.url }), request()),
    );
    expect(failure.type).toBe(ModelError.BadRequest);
    expect(failure.message).toMatch(/^HTTP 400 from anthropic:claude-sonnet-4-6: overloaded y+…$/);
    expect(failure.cause?.message).toMatch(/^400 \{.*…$/);
    expect(failure.cause?.message.length).toBeLessThanOrEqual(120);
    expect(`${failure.message}${failure.cause?.stack}`).not.toContain('SECRET');
  });
});
