import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyConfigFile, configFilePath, isConfigKey, parseConfigFile } from '../../../src/config/config-file';
import { ConfigError, loadConfig } from '../../../src/config';

describe('config file', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-config-file-'));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('turns values into variables: strings as they are, numbers and booleans as text, arrays joined with commas', () => {
    const text = JSON.stringify({
      SCRATCHPAD_TASK_QUEUE: 'mine',
      SCRATCHPAD_SHELL_TIMEOUT_MS: 5000,
      SCRATCHPAD_SHELL_UNCONFINED: true,
      SCRATCHPAD_FETCH_PORTS: [80, 8080],
      SCRATCHPAD_FETCH_ALLOW: ['example.com', '*.example.org'],
      TEMPORAL_API_KEY: 'key',
      TEMPORAL_GRPC_META_X_TENANT: 'acme',
    });
    const variables = parseConfigFile(text, 'scratchpad.json');
    expect(variables).toEqual({
      SCRATCHPAD_TASK_QUEUE: 'mine',
      SCRATCHPAD_SHELL_TIMEOUT_MS: '5000',
      SCRATCHPAD_SHELL_UNCONFINED: 'true',
      SCRATCHPAD_FETCH_PORTS: '80,8080',
      SCRATCHPAD_FETCH_ALLOW: 'example.com,*.example.org',
      TEMPORAL_API_KEY: 'key',
      TEMPORAL_GRPC_META_X_TENANT: 'acme',
    });
    const config = loadConfig(variables);
    expect(config.SCRATCHPAD_FETCH_PORTS).toEqual([80, 8080]);
    expect(config.SCRATCHPAD_SHELL_UNCONFINED).toBe(true);
  });

  it('refuses an unknown key, bad JSON, a non-object, a nested value and a bad value in one line naming file and key', () => {
    const refusal = (text: string) => {
      try {
        parseConfigFile(text, '/here/scratchpad.json');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal('{"SCRATCHPAD_TASKQUEUE": "x"}')).toMatch(
      /^config file \/here\/scratchpad\.json: unknown key "SCRATCHPAD_TASKQUEUE": keys are the environment variables/,
    );
    expect(refusal('{"PATH": "/bin"}')).toContain('unknown key "PATH"');
    expect(refusal('{"SCRATCHPAD_TASK_QUEUE": ')).toMatch(/^config file \/here\/scratchpad\.json: not JSON/);
    expect(refusal('["SCRATCHPAD_TASK_QUEUE"]')).toContain('expected a JSON object');
    expect(refusal('{"SCRATCHPAD_FETCH_ALLOW": {"host": "x"}}')).toContain('"SCRATCHPAD_FETCH_ALLOW" must be');
    expect(refusal('{"SCRATCHPAD_FETCH_ALLOW": [["x"]]}')).toContain('"SCRATCHPAD_FETCH_ALLOW" must be');
    expect(refusal('{"SCRATCHPAD_TASK_QUEUE": null}')).toContain('"SCRATCHPAD_TASK_QUEUE" must be');
    expect(refusal('{"TEMPORAL_ADDRESS": "no port"}')).toContain('"TEMPORAL_ADDRESS": expected host:port');
    for (const message of ['{"NOPE": 1}', '{', '{"TEMPORAL_ADDRESS": "x"}'].map(refusal)) {
      expect(message).not.toContain('\n');
    }
    expect(isConfigKey('TEMPORAL_GRPC_META_')).toBe(false);
  });

  it('resolves relative paths against the file, leaving programs and packages named without a path alone', () => {
    const text = JSON.stringify({
      SCRATCHPAD_HOME: 'data',
      SCRATCHPAD_SANDBOX: '/abs/sandbox',
      SCRATCHPAD_OBSERVATIONS: 'redis://localhost:6379',
      SCRATCHPAD_MCP_CONFIG: '../mcp.json',
      SCRATCHPAD_TOOLS: 'my-tools-package',
      SCRATCHPAD_BWRAP_PATH: './bin/bwrap',
      TEMPORAL_CLI_PATH: 'temporal',
    });
    expect(parseConfigFile(text, '/project/conf/scratchpad.json')).toEqual({
      SCRATCHPAD_HOME: '/project/conf/data',
      SCRATCHPAD_SANDBOX: '/abs/sandbox',
      SCRATCHPAD_OBSERVATIONS: 'redis://localhost:6379',
      SCRATCHPAD_MCP_CONFIG: '/project/mcp.json',
      SCRATCHPAD_TOOLS: 'my-tools-package',
      SCRATCHPAD_BWRAP_PATH: '/project/conf/bin/bwrap',
      TEMPORAL_CLI_PATH: 'temporal',
    });
  });

  it('applies scratchpad.json of the working directory where the environment leaves a variable unset', () => {
    fs.writeFileSync(
      path.join(cwd, 'scratchpad.json'),
      JSON.stringify({
        SCRATCHPAD_TASK_QUEUE: 'from-file',
        SCRATCHPAD_LOG_LEVEL: 'debug',
        SCRATCHPAD_APPROVE: ['shell'],
      }),
    );
    const env: NodeJS.ProcessEnv = { SCRATCHPAD_LOG_LEVEL: 'ERROR', SCRATCHPAD_APPROVE: '' };
    expect(applyConfigFile(undefined, env, cwd)).toBe(path.join(cwd, 'scratchpad.json'));
    // The environment wins; an empty variable counts as unset, as everywhere in this configuration.
    expect(env).toEqual({
      SCRATCHPAD_TASK_QUEUE: 'from-file',
      SCRATCHPAD_LOG_LEVEL: 'ERROR',
      SCRATCHPAD_APPROVE: 'shell',
      // Named for the processes this one starts (a background worker), so they read the same file.
      SCRATCHPAD_CONFIG: path.join(cwd, 'scratchpad.json'),
    });
  });

  it('reads --config, else SCRATCHPAD_CONFIG, relative to the working directory; a named file must exist', () => {
    fs.writeFileSync(path.join(cwd, 'a.json'), '{"SCRATCHPAD_TASK_QUEUE": "a"}');
    fs.writeFileSync(path.join(cwd, 'b.json'), '{"SCRATCHPAD_TASK_QUEUE": "b"}');
    fs.writeFileSync(path.join(cwd, 'scratchpad.json'), '{"SCRATCHPAD_TASK_QUEUE": "local"}');
    const fromOption: NodeJS.ProcessEnv = { SCRATCHPAD_CONFIG: 'b.json' };
    applyConfigFile('a.json', fromOption, cwd);
    expect(fromOption.SCRATCHPAD_TASK_QUEUE).toBe('a');
    const fromVariable: NodeJS.ProcessEnv = { SCRATCHPAD_CONFIG: 'b.json' };
    applyConfigFile(undefined, fromVariable, cwd);
    expect(fromVariable.SCRATCHPAD_TASK_QUEUE).toBe('b');
    expect(() => applyConfigFile('missing.json', {}, cwd)).toThrow(
      new ConfigError(
        `config file ${path.join(cwd, 'missing.json')} not found (--config or SCRATCHPAD_CONFIG names it)`,
      ),
    );
  });

  it('is optional: without one nothing changes', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(configFilePath(undefined, env, cwd)).toBeUndefined();
    expect(applyConfigFile(undefined, env, cwd)).toBeUndefined();
    expect(env).toEqual({});
  });
});
