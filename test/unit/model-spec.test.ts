import { parseModelSpec } from '../../src/config/model-spec';

describe('model specs', () => {
  it('reads an OpenAI-compatible server with native tool calls, or the text protocol after #text', () => {
    expect(parseModelSpec('openai:qwen2.5:7b@http://localhost:11434/v1')).toEqual({
      provider: 'openai',
      model: 'qwen2.5:7b',
      baseURL: 'http://localhost:11434/v1',
      protocol: 'tools',
    });
    expect(parseModelSpec('openai:tiny@http://127.0.0.1:8080/v1#text')).toMatchObject({
      model: 'tiny',
      baseURL: 'http://127.0.0.1:8080/v1',
      protocol: 'text',
    });
    expect(parseModelSpec('openai:llama3')).toMatchObject({ baseURL: 'http://localhost:11434/v1', protocol: 'tools' });
  });

  it.each(['openai:m@http://h/v1#json', 'openai:m@http://h/v1#', 'openai:@http://h/v1', 'openai:m@ftp://h/v1'])(
    'refuses %s, naming the forms it takes',
    (spec) => {
      expect(() => parseModelSpec(spec)).toThrow(
        /expected anthropic:MODEL, openai:MODEL@http:\/\/HOST:PORT\/v1\[#text\]/,
      );
    },
  );
});
