import { EXIT, CliError } from '../../../src/cli/errors';
import { reportError } from '../../../src/cli/main';

describe('errors as the CLI prints them', () => {
  it('an unexpected error is one line, its causes after it, with a hint at --verbose; no stack', async () => {
    const failure = new Error('Workflow execution failed', { cause: new Error('ModelError.Auth: 401 bad key\nmore') });
    const report = await reportError(failure, false);
    expect(report).toEqual({
      text: 'scratchpad: Workflow execution failed: ModelError.Auth: 401 bad key (run again with --verbose for the details)\n',
      exitCode: EXIT.error,
    });
  });

  it('--verbose prints the stacks of the error and its causes before the line', async () => {
    const failure = new Error('outer', { cause: new Error('inner') });
    const { text } = await reportError(failure, true);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('Error: outer');
    expect(text).toMatch(/\n {4}at /);
    expect(text).toContain('caused by: Error: inner');
    expect(lines.at(-1)).toBe('scratchpad: outer: inner');
  });

  it("a CliError keeps its message and exit code; the incomplete research run's code is 6", async () => {
    expect(await reportError(new CliError('bad', EXIT.usage), false)).toEqual({
      text: 'scratchpad: bad\n',
      exitCode: 2,
    });
    expect(EXIT.incomplete).toBe(6);
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });

  it('a dev server stuck on its SQLite interrupt is named, with the error and how to get out of it', async () => {
    const grpc = Object.assign(
      new Error('14 UNAVAILABLE: GetCurrentExecution operation failed. Error: interrupted (9)'),
      {
        code: 14,
      },
    );
    const { text } = await reportError(new Error('Failed to describe workflow', { cause: grpc }), false);
    expect(text).toMatch(
      /^scratchpad: Failed to describe workflow: 14 UNAVAILABLE: .*interrupted \(9\)\nIf every call/,
    );
    expect(text).toContain('Restart it (`scratchpad down`, then `scratchpad up`');
  });
});
