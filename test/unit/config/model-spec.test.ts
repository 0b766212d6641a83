import { parseModelSpec } from '../../../src/config/model-spec';

describe('model specs', () => {
  it('reads an OpenAI-compatible server probed for its protocol, or the protocol after #tools, #json or #text', () => {
    expect(parseModelSpec('openai:qwen2.5:7b@http://localhost:11434/v1')).toEqual({
      provider: 'openai',
      model: 'qwen2.5:7b',
      baseURL: 'http://localhost:11434/v1',
      protocol: 'auto',
    });
    expect(parseModelSpec('openai:tiny@http://127.0.0.1:8080/v1#text')).toMatchObject({
      model: 'tiny',
      baseURL: 'http://127.0.0.1:8080/v1',
      protocol: 'text',
    });
    expect(parseModelSpec('openai:m@http://h/v1#json')).toEqual({
      provider: 'openai',
      model: 'm',
      baseURL: 'http://h/v1',
      protocol: 'json',
    });
    expect(parseModelSpec('openai:qwen2.5:7b@http://h/v1#tools')).toMatchObject({
      model: 'qwen2.5:7b',
      protocol: 'tools',
    });
    expect(parseModelSpec('openai:llama3')).toMatchObject({ baseURL: 'http://localhost:11434/v1', protocol: 'auto' });
  });

  it.each(['openai:m@http://h/v1#xml', 'openai:m@http://h/v1#', 'openai:@http://h/v1', 'openai:m@ftp://h/v1'])(
    'refuses %s, naming the forms it takes',
    (spec) => {
      expect(() => parseModelSpec(spec)).toThrow(
        /expected anthropic:MODEL, openai:MODEL@http:\/\/HOST:PORT\/v1\[#tools\|#json\|#text\]/,
      );
    },
  );
});
