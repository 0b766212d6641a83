import { buildProgram } from '../../../src/cli/main';
import { approvalsTable, callText, parseAnswer, pickCall } from '../../../src/cli/approval-calls';
import { editApprovePatterns } from '../../../src/cli/commands/configure';
import { approvalOf, toolsTable } from '../../../src/cli/tool-catalogue';
import { CliError, EXIT } from '../../../src/cli/errors';
import { durationParser, parseJsonObject, toolPatternParser } from '../../../src/cli/options';
import type { PendingCall } from '../../../src/clients/approvals';
import type { ToolDescriptor } from '../../../src/core/tools/descriptor';

function call(callId: string, tool = 'shell', args = '{"command":"ls"}'): PendingCall {
  return {
    callId,
    cycleId: 'agent/a/cycle/3',
    tool,
    args,
    iteration: 1,
    requestedAt: '2026-01-02T03:04:05.678Z',
    expiresAt: '2026-01-03T03:04:05.678Z',
    agentId: 'a',
    target: 'a',
  };
}

/** Parses a command line as `scratchpad` would; resolves to the CliError its action or parsers throw. */
async function refusal(args: string[]): Promise<CliError> {
  const program = buildProgram(() => undefined).configureOutput({ writeErr: () => undefined });
  const error = await program.parseAsync(['node', 'scratchpad', ...args]).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof CliError)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

describe('approval arguments', () => {
  it('takes --args only as a JSON object, saying what it got otherwise', () => {
    expect(parseJsonObject('{"command":"date","n":2}')).toEqual({ command: 'date', n: 2 });
    expect(() => parseJsonObject('{"command":')).toThrow(/^invalid --args: not JSON \(/);
    expect(() => parseJsonObject('["ls"]')).toThrow("expected a JSON object of the tool's arguments, got an array");
    expect(() => parseJsonObject('"ls"')).toThrow('got a string');
    expect(() => parseJsonObject('null')).toThrow('got null');
    expect(() => parseJsonObject('7')).toThrow('got a number');
  });

  it('refuses bad --args, --approve, --no-approve and --approval-timeout before reaching any server', async () => {
    await expect(refusal(['approve', 'a', '1.0', '--args', '[1,2]'])).resolves.toMatchObject({
      message: "invalid --args: expected a JSON object of the tool's arguments, got an array",
      exitCode: EXIT.usage,
    });
    await expect(refusal(['configure', 'a', '--approve', 'rm -rf'])).resolves.toMatchObject({
      message: expect.stringContaining('invalid --approve "rm -rf"'),
      exitCode: EXIT.usage,
    });
    await expect(refusal(['configure', 'a', '--no-approve', ','])).resolves.toMatchObject({
      message: expect.stringContaining('invalid --no-approve ","'),
    });
    await expect(refusal(['configure', 'a', '--approval-timeout', '24'])).resolves.toMatchObject({
      message: 'invalid --approval-timeout "24": expected a duration such as 30m, 4h, 1h30m or 2d',
      exitCode: EXIT.usage,
    });
    await expect(refusal(['configure', 'a', '--approve', 'shell', '--no-approve', 'shell'])).resolves.toMatchObject({
      message: 'both --approve and --no-approve name shell',
    });
    await expect(refusal(['deny', 'a', '--reason', '  '])).resolves.toMatchObject({
      message: expect.stringMatching(/^invalid decision: reason: /),
      exitCode: EXIT.usage,
    });
    await expect(refusal(['deny', 'not an agent'])).resolves.toMatchObject({
      message: expect.stringContaining('invalid agent id "not an agent"'),
      exitCode: EXIT.usage,
    });
  });

  it('reads durations and tool patterns as the other options do', () => {
    expect(durationParser('--approval-timeout')('1h30m')).toBe(5_400_000);
    expect(durationParser('--approval-timeout')('2d')).toBe(172_800_000);
    expect(() => durationParser('--approval-timeout')('0s')).toThrow('invalid --approval-timeout "0s"');
    expect(toolPatternParser('--approve')('shell, fs_write ,github__delete_*')).toEqual([
      'shell',
      'fs_write',
      'github__delete_*',
    ]);
  });
});

describe("an agent's approve patterns", () => {
  it('adds without repeats, removes, and reports what the agent never had', () => {
    expect(editApprovePatterns(['shell'], ['fs_write', 'shell'], [])).toEqual({
      approve: ['shell', 'fs_write'],
      notRemoved: [],
    });
    expect(editApprovePatterns(['shell', 'fs_write'], [], ['shell', 'web_fetch'])).toEqual({
      approve: ['fs_write'],
      notRemoved: ['web_fetch'],
    });
    expect(editApprovePatterns(null, ['a*'])).toEqual({ approve: ['a*'], notRemoved: [] });
  });
});

describe('choosing the call a decision is for', () => {
  it('takes the only call, and refuses none or several in one line listing them', () => {
    expect(pickCall([call('1.0')], 'a')?.callId).toBe('1.0');
    expect(() => pickCall([], 'a')).toThrow('no tool call of a is waiting for a decision');
    let several: unknown;
    try {
      pickCall([call('1.0'), call('2.0', 'fs_write', '{"path":"x"}')], 'a');
    } catch (error) {
      several = error;
    }
    expect(several).toBeInstanceOf(CliError);
    expect((several as CliError).exitCode).toBe(EXIT.usage);
    expect((several as CliError).message).toBe(
      '2 tool calls of a are waiting: name one of 1.0 shell({"command":"ls"}) in agent/a/cycle/3; ' +
        '2.0 fs_write({"path":"x"}) in agent/a/cycle/3',
    );
    expect((several as CliError).message).not.toContain('\n');
  });

  it('finds a named call, and leaves an unknown one to the workflow to judge', () => {
    expect(pickCall([call('1.0'), call('2.0')], 'a', '2.0')?.callId).toBe('2.0');
    expect(pickCall([call('1.0')], 'a', '9.9')).toBeUndefined();
  });
});

describe('how waiting calls read', () => {
  it('shows a call on one line, its arguments cut', () => {
    expect(callText(call('1.0'))).toBe('shell({"command":"ls"})');
    const long = callText(call('1.0', 'shell', `{"command":"${'x'.repeat(500)}"}`));
    expect(long.length).toBeLessThan(140);
    expect(long.endsWith('…)')).toBe(true);
    expect(callText(call('1.0', 'shell', '{\n  "command": "ls"\n}'))).toBe('shell({ "command": "ls" })');
  });

  it('lists calls in a table under a header, with the target to decide through', () => {
    const stage = { ...call('2.1', 'fs_write'), target: 'staged/a/1/stage-1', context: 'stage 1: write the API' };
    const table = approvalsTable([call('1.0'), stage]).split('\n');
    expect(table[0]).toMatch(/^TARGET +CALL +TOOL +REQUESTED +EXPIRES +CALL AS GIVEN$/);
    expect(table[1]).toMatch(/^a +1\.0 +shell +2026-01-02T03:04:05Z +2026-01-03T03:04:05Z +shell\(/);
    expect(table[2]).toMatch(/^staged\/a\/1\/stage-1 +2\.1 +fs_write .*\[stage 1: write the API\] fs_write\(/);
  });

  it("reads chat's answer: y approves, N or Enter denies, e edits, anything else asks again", () => {
    expect(['y', 'Y', ' yes '].map(parseAnswer)).toEqual(['approve', 'approve', 'approve']);
    expect(['', 'n', 'N', 'no'].map(parseAnswer)).toEqual(['deny', 'deny', 'deny', 'deny']);
    expect(['e', 'edit'].map(parseAnswer)).toEqual(['edit', 'edit']);
    expect(parseAnswer('maybe')).toBeUndefined();
  });

  it("shows each tool's approval policy in the tools table", () => {
    const tool = (name: string, approval?: 'ask' | 'auto'): ToolDescriptor =>
      ({
        name,
        source: 'builtin',
        description: `${name} tool`,
        inputSchema: {},
        policy: { retry: true, offload: true, approval: approval ?? 'auto' },
      }) as ToolDescriptor;
    expect(approvalOf(tool('shell', 'ask'))).toBe('ask');
    expect(approvalOf(tool('echo', 'auto'))).toBe('auto');
    expect(approvalOf(tool('fs_write', 'auto'), new Set(['fs_write']))).toBe('ask (agent)');
    const rows = toolsTable([tool('shell', 'ask'), tool('echo')]).split('\n');
    expect(rows[0]).toMatch(/^NAME +SOURCE +POLICY +APPROVAL +DESCRIPTION$/);
    expect(rows[1]).toMatch(/^shell +builtin +- +ask +shell tool$/);
    expect(rows[2]).toMatch(/^echo +builtin +- +auto +echo tool$/);
  });
});
