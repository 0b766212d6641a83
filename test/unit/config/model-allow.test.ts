import { excerpt, quotedSpec } from '../../../src/activities/model/excerpt';
import { ConfigError, isModelAllowed, loadConfig, modelAllowProblem } from '../../../src/config';

const LOCAL = 'http://127.0.0.1:8000/v1';

describe('which model specs a worker allows', () => {
  it('allows a spec named exactly, and nothing merely like it', () => {
    const allowed = [`openai:qwen@${LOCAL}`, 'scripted:/srv/models/demo.jsonl', 'anthropic:claude-sonnet-4-6'];
    for (const spec of allowed) expect(isModelAllowed(spec, allowed)).toBe(true);
    for (const spec of [
      `openai:qwen@${LOCAL}#text`,
      `openai:qwen@${LOCAL}/`,
      'openai:qwen@http://127.0.0.1:8001/v1',
      'scripted:/srv/models/other.jsonl',
      'scripted:/srv/models/demo.jsonl/../../../etc/passwd',
      'anthropic:claude-opus-4-1',
    ]) {
      expect(isModelAllowed(spec, allowed)).toBe(false);
    }
  });

  it('anthropic:* allows any Anthropic model and nothing of another provider', () => {
    const allowed = ['anthropic:*'];
    expect(isModelAllowed('anthropic:claude-haiku-4-5', allowed)).toBe(true);
    expect(isModelAllowed('anthropic:claude-sonnet-4-6', allowed)).toBe(true);
    expect(isModelAllowed(`openai:claude@${LOCAL}`, allowed)).toBe(false);
    expect(isModelAllowed('scripted:/etc/hostname', allowed)).toBe(false);
    expect(isModelAllowed('anthropic:', allowed)).toBe(false);
  });

  it('openai:*@URL allows any model at exactly that base URL, and at most the protocol it names', () => {
    const any = [`openai:*@${LOCAL}`];
    expect(isModelAllowed(`openai:qwen2.5:7b@${LOCAL}`, any)).toBe(true);
    expect(isModelAllowed(`openai:llama@${LOCAL}#text`, any)).toBe(true);
    // The last @ starts the base URL, so a model name holding another URL still goes to the allowed one.
    expect(isModelAllowed(`openai:x@http://evil.example/v1@${LOCAL}`, any)).toBe(true);
    for (const spec of [
      'openai:qwen@http://127.0.0.1:8001/v1',
      'openai:qwen@http://127.0.0.1:8000/v1/anything',
      'openai:qwen@http://127.0.0.1:8000',
      `openai:qwen@${LOCAL}@http://169.254.169.254/latest`,
      'openai:qwen',
      `anthropic:qwen@${LOCAL}`,
    ]) {
      expect(isModelAllowed(spec, any)).toBe(false);
    }
    const textOnly = [`openai:*@${LOCAL}#text`];
    expect(isModelAllowed(`openai:qwen@${LOCAL}#text`, textOnly)).toBe(true);
    expect(isModelAllowed(`openai:qwen@${LOCAL}`, textOnly)).toBe(false);
    // Without @, the wildcard is the default base URL's, as `openai:MODEL` is.
    expect(isModelAllowed('openai:llama3', ['openai:*'])).toBe(true);
    expect(isModelAllowed(`openai:llama3@${LOCAL}`, ['openai:*'])).toBe(false);
  });

  it('scripted:* allows any script file; without it only files named exactly', () => {
    expect(isModelAllowed('scripted:/tmp/anything.jsonl', ['scripted:*'])).toBe(true);
    expect(isModelAllowed('scripted:/tmp/anything.jsonl', ['scripted:/tmp/other.jsonl', 'anthropic:*'])).toBe(false);
  });

  it('allows nothing given an empty list, nor a spec that does not parse', () => {
    expect(isModelAllowed('anthropic:claude-sonnet-4-6', [])).toBe(false);
    expect(isModelAllowed(`openai:x@${LOCAL}#`, [`openai:*@${LOCAL}`])).toBe(false);
    expect(isModelAllowed('gpt:4', ['anthropic:*', 'scripted:*', `openai:*@${LOCAL}`])).toBe(false);
  });

  it('refuses list entries that are neither specs nor wildcards, and a * anywhere but the whole model', () => {
    for (const entry of ['anthropic:*', 'scripted:*', `openai:*@${LOCAL}`, `openai:*@${LOCAL}#text`, 'openai:*']) {
      expect(modelAllowProblem(entry)).toBeUndefined();
    }
    expect(modelAllowProblem(`openai:qwen@${LOCAL}`)).toBeUndefined();
    expect(modelAllowProblem('anthropic:claude-*')).toMatch(/wildcard stands only for a whole spec/);
    expect(modelAllowProblem('openai:qwen*@http://h/v1')).toMatch(/wildcard/);
    expect(modelAllowProblem('*')).toMatch(/"\*" is not a model spec/);
    expect(modelAllowProblem('openai:*@ftp://h/v1')).toMatch(/is not a model spec/);
  });
});

describe('SCRATCHPAD_MODELS', () => {
  it('is read as a comma-separated list, empty by default', () => {
    expect(loadConfig({}).SCRATCHPAD_MODELS).toEqual([]);
    expect(loadConfig({ SCRATCHPAD_MODELS: ` anthropic:*, openai:*@${LOCAL} ,,` }).SCRATCHPAD_MODELS).toEqual([
      'anthropic:*',
      `openai:*@${LOCAL}`,
    ]);
  });

  it('refuses a bad entry, naming it', () => {
    expect(() => loadConfig({ SCRATCHPAD_MODELS: 'anthropic:*,claude-*' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCRATCHPAD_MODELS: 'anthropic:*,claude-*' })).toThrow(/"claude-\*" is not a model spec/);
  });
});

describe('quoting outside text in a failure', () => {
  it('keeps one line without control or format characters, cut to the limit', () => {
    expect(excerpt('<html>\n\t<body>\u001b[31mred\u001b[0m\r\n\u202eevil</body>')).toBe(
      '<html> <body> [31mred [0m evil</body>',
    );
    const long = excerpt('x'.repeat(1000));
    expect(Array.from(long)).toHaveLength(120);
    expect(long.endsWith('…')).toBe(true);
    expect(excerpt('😀'.repeat(200), 10)).toBe(`${'😀'.repeat(9)}…`);
  });

  it('leaves out the userinfo of a URL in a spec', () => {
    expect(quotedSpec('openai:x@http://user:secret@host/v1')).toBe('openai:x@http://***@host/v1');
    expect(quotedSpec(`openai:x@${LOCAL}`)).toBe(`openai:x@${LOCAL}`);
    expect(quotedSpec(`scripted:${'a'.repeat(300)}`)).toHaveLength(100);
  });
});
