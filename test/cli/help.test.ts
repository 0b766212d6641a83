import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { buildProgram } from '../../src/cli/main';
import { EnvSchema } from '../../src/config';

function helpText(): string {
  let out = '';
  const program = buildProgram(() => undefined).configureOutput({ writeOut: (text) => (out += text) });
  expect(() => program.parse(['node', 'scratchpad', '--help'])).toThrow('(outputHelp)');
  return out;
}

describe('scratchpad --help', () => {
  it('lists every variable of the config schema with its description and default', () => {
    const help = helpText();
    const environment = help.slice(help.indexOf('Environment:'));

    for (const [name, schema] of Object.entries(EnvSchema.shape)) {
      expect(schema.description).toMatch(/\w/);
      expect(environment).toMatch(
        new RegExp(`^  ${name} +${schema.description?.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
      );
    }
    expect(environment).toMatch(
      /^ {2}SCRATCHPAD_SHELL_ALLOW +programs the shell tool may run, comma-separated \(default echo,date,/m,
    );
    expect(environment).toMatch(/^ {2}SCRATCHPAD_FETCH_ALLOW +.*\(default empty\)$/m);
    expect(environment).toMatch(/^ {2}SCRATCHPAD_OFFLOAD_BYTES +.*\(default 4096\)$/m);
    expect(help).toContain('Exit codes: 0 success');
  });

  it('lists every command group', () => {
    const help = helpText();

    for (const command of ['demo', 'worker', 'cycle', 'show', 'timeline', 'send', 'configure', 'import', 'schedule']) {
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });
});

describe('scratchpad --help into a reader that stops early', () => {
  it('ends without an error when the reader has closed the pipe', async () => {
    // `true` exits without reading, long before node has started: every write then finds the pipe closed.
    const command = `"${process.execPath}" "${path.resolve(__dirname, '..', '..', 'bin', 'scratchpad.js')}" --help | true`;
    const stderr = await new Promise<string>((resolve) =>
      execFile('sh', ['-c', command], (_error, _stdout, text) => resolve(text)),
    );
    expect(stderr).toBe('');
  });
});
