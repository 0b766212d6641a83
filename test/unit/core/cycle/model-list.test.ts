import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig, parseModelList, resolveModelSpec } from '../../../../src/config';
import { MAX_MODEL_LIST, modelListOf, modelListProblem } from '../../../../src/core/cycle/model-list';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'model-list-'));

describe('model lists (SPEC,SPEC: each model a fallback for the one before)', () => {
  it('reads the specs in order, trimmed; one spec is a list of one', () => {
    expect(modelListOf('anthropic:claude-sonnet-5-5, openai:qwen2.5:7b@http://h/v1#json')).toEqual([
      'anthropic:claude-sonnet-5-5',
      'openai:qwen2.5:7b@http://h/v1#json',
    ]);
    expect(modelListOf('scripted:a.jsonl')).toEqual(['scripted:a.jsonl']);
    expect(parseModelList('anthropic:m,openai:n@http://h/v1#text')).toEqual([
      { provider: 'anthropic', model: 'm' },
      { provider: 'openai', model: 'n', baseURL: 'http://h/v1', protocol: 'text' },
    ]);
  });

  it('says what is wrong with a list: an empty entry, a repeat, too many', () => {
    expect(modelListProblem('anthropic:m,,anthropic:n')).toBe('entry 2 of the model list is empty');
    expect(modelListProblem('anthropic:m,')).toBe('entry 2 of the model list is empty');
    expect(modelListProblem('anthropic:m, anthropic:m')).toBe('the model list names anthropic:m twice');
    const many = Array.from({ length: MAX_MODEL_LIST + 1 }, (_, index) => `anthropic:m${index}`).join(',');
    expect(modelListProblem(many)).toBe(
      `a model list names at most ${MAX_MODEL_LIST} models, not ${MAX_MODEL_LIST + 1}`,
    );
    expect(modelListProblem('anthropic:m,anthropic:n')).toBeUndefined();
  });

  it('refuses a bad list in one line, naming the entry that is not a spec by its place', () => {
    expect(() => parseModelList('anthropic:m,,anthropic:n')).toThrow(
      'invalid model list "anthropic:m,,anthropic:n": entry 2 of the model list is empty',
    );
    expect(() => parseModelList('anthropic:m,openai:n@ftp://h/v1')).toThrow(
      /^model 2 of the list: invalid model "openai:n@ftp:\/\/h\/v1": expected anthropic:MODEL/,
    );
    // A single bad spec reads as it always did.
    expect(() => parseModelList('nonsense')).toThrow(/^invalid model "nonsense": expected/);
  });

  it('a configured list needs ANTHROPIC_API_KEY when any of its models is Anthropic', () => {
    const list = 'openai:n@http://h/v1,anthropic:m';
    expect(resolveModelSpec(loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_MODEL: 'openai:n@http://h/v1' }))).toBe(
      'openai:n@http://h/v1',
    );
    expect(() => resolveModelSpec(loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_MODEL: list }))).toThrow(
      `model ${list} needs ANTHROPIC_API_KEY`,
    );
    const keyed = loadConfig({ SCRATCHPAD_HOME: home, SCRATCHPAD_MODEL: list, ANTHROPIC_API_KEY: 'sk-test' });
    expect(resolveModelSpec(keyed)).toBe(list);
  });
});
