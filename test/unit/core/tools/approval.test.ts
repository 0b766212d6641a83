import { defineTool } from '../../../../src/activities/tools/define-tool';
import { catalogueOf } from '../../../../src/activities/tools/mcp/listing';
import { ToolRegistry } from '../../../../src/activities/tools/registry';
import { z } from 'zod';
import { AgentSettingsSchema } from '../../../../src/core/agent/agent';
import { subagentInput } from '../../../../src/core/agent/subagent';
import { AgentCycleInputSchema } from '../../../../src/core/agent/cycle-input';
import { SubagentCycleInputSchema } from '../../../../src/core/agent/subagent';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { APPROVAL_ARGS_DISPLAY_CHARS, type Decision, type PendingApproval } from '../../../../src/core/tools/approval';
import { ApprovalBook, describeDecision } from '../../../../src/core/tools/approval-book';
import {
  approvalCallId,
  approvedObservation,
  callIdPrefix,
  deniedObservation,
  displayArgs,
  globMatches,
  mcpApproval,
  needsApproval,
  timeoutReason,
  workerApproval,
} from '../../../../src/core/tools/approval-policy';

function pending(callId: string, tool = 'shell'): PendingApproval {
  return {
    callId,
    cycleId: 'agent/a/cycle/1',
    tool,
    args: '{}',
    iteration: 1,
    requestedAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  };
}

function decision(callId: string, overrides: Partial<Decision> = {}): Decision {
  return {
    callId,
    cycleId: 'agent/a/cycle/1',
    tool: 'shell',
    decision: 'approve',
    by: 'ada',
    at: '2026-01-01T01:00:00.000Z',
    ...overrides,
  };
}

describe('the approval policy rule', () => {
  it('matches tool globs without a regular expression, in linear time even for many stars', () => {
    expect(globMatches('shell', 'shell')).toBe(true);
    expect(globMatches('shell', 'shell2')).toBe(false);
    expect(globMatches('fs_*', 'fs_write')).toBe(true);
    expect(globMatches('github__delete_*', 'github__delete_repo')).toBe(true);
    expect(globMatches('github__delete_*', 'github__list_repos')).toBe(false);
    expect(globMatches('fs_????e', 'fs_write')).toBe(true);
    expect(globMatches('*', 'anything')).toBe(true);
    const started = Date.now();
    expect(globMatches(`${'*a'.repeat(40)}z`, 'a'.repeat(64))).toBe(false);
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('asks when the source, the worker or the agent asks; the agent cannot waive the others', () => {
    // The worker folds its SCRATCHPAD_APPROVE patterns and the source's policy into the catalogue entry.
    expect(workerApproval('shell', 'auto', ['shell', 'fs_write'])).toBe('ask');
    expect(workerApproval('lookup', 'ask', [])).toBe('ask');
    expect(workerApproval('echo', 'auto', ['shell'])).toBe('auto');
    expect(workerApproval('echo', undefined, undefined)).toBe('auto');
    // The cycle adds the agent's own patterns.
    expect(needsApproval('shell', 'ask', [])).toBe(true);
    expect(needsApproval('shell', 'ask', undefined)).toBe(true);
    expect(needsApproval('echo', 'auto', ['echo'])).toBe(true);
    expect(needsApproval('echo', 'auto', ['fs_*'])).toBe(false);
    // A catalogue recorded before approvals, or none: only the agent asks.
    expect(needsApproval('shell', undefined, undefined)).toBe(false);
    expect(needsApproval('shell', undefined, ['sh*'])).toBe(true);
  });

  it("reads an MCP server's approve: true for all its tools, a list for the tools it names", () => {
    expect(mcpApproval('delete_repo', true)).toBe('ask');
    expect(mcpApproval('delete_repo', false)).toBe('auto');
    expect(mcpApproval('delete_repo', ['delete_*'])).toBe('ask');
    expect(mcpApproval('list_repos', ['delete_*'])).toBe('auto');
    expect(mcpApproval('list_repos', undefined)).toBe('auto');
  });

  it('gives call ids unique across an agent tree of sub-agents', () => {
    expect(approvalCallId('agent/a/cycle/3', 2, 1)).toBe('2.1');
    expect(approvalCallId('agent/a/cycle/3/sub/1', 2, 1)).toBe('sub1-2.1');
    expect(callIdPrefix('agent/a/cycle/3/sub/1/sub/2')).toBe('sub1.2-');
    expect(callIdPrefix('research/r/worker/2/cycle')).toBe('');
    expect(callIdPrefix('staged/a/1/stage-2')).toBe('');
  });

  it('shows arguments cut for display and tells the model who denied or changed a call', () => {
    expect(displayArgs({ command: 'ls' })).toBe('{"command":"ls"}');
    const long = displayArgs({ content: 'x'.repeat(5000) });
    expect(long.length).toBe(APPROVAL_ARGS_DISPLAY_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(deniedObservation({ by: 'bob', reason: 'not today' })).toEqual({
      ok: false,
      error: 'denied by bob: not today',
    });
    expect(deniedObservation({ by: 'bob' }).error).toBe('denied by bob: no reason given');
    expect(timeoutReason(24 * 60 * 60 * 1000)).toBe('timed out after 1d without a decision');
    const ran = { ok: true, result: 'done' };
    expect(approvedObservation(ran, { by: 'ada' })).toBe(ran);
    expect(approvedObservation(ran, { by: 'ada', editedArgs: '{"command":"ls"}' })).toEqual({
      ...ran,
      approval: 'the arguments were changed by ada before it ran; it ran with {"command":"ls"}',
    });
  });
});

describe('the approval book (what decide refuses)', () => {
  it('takes the one waiting call when none is named, and refuses when none or several wait', () => {
    const book = new ApprovalBook('agent a');
    expect(book.target({})).toEqual({ ok: false, refusal: 'no call waits for a decision on agent a' });
    book.add(pending('1.1'));
    const one = book.target({});
    expect(one.ok && one.entry.pending.callId).toBe('1.1');
    book.add(pending('sub1-2.1', 'fs_write'));
    expect(book.target({})).toEqual({
      ok: false,
      refusal: '2 calls wait for a decision on agent a: name one of 1.1 (shell), sub1-2.1 (fs_write)',
    });
    expect(book.target({ callId: 'sub1-2.1' }).ok).toBe(true);
  });

  it('refuses unknown, contested and decided calls, naming why; an abandoned decision lets the call wait again', () => {
    const book = new ApprovalBook('cycle agent/a/cycle/1');
    book.add(pending('1.1'));
    expect(book.target({ callId: '9.9' })).toEqual({
      ok: false,
      refusal: 'no call "9.9" on cycle agent/a/cycle/1 (waiting: 1.1)',
    });
    book.begin('1.1', 'ada');
    expect(book.target({ callId: '1.1' })).toEqual({
      ok: false,
      refusal: 'call 1.1 is already being decided by ada; this decision is refused',
    });
    expect(book.pending()).toHaveLength(1);
    book.abandon('1.1');
    expect(book.target({ callId: '1.1' }).ok).toBe(true);
    expect(book.settle('1.1', decision('1.1', { decision: 'deny', by: 'bob', reason: 'no' }))).toBe(true);
    expect(book.settle('1.1', decision('1.1'))).toBe(false);
    expect(book.get('1.1')?.decision?.by).toBe('bob');
    expect(book.target({ callId: '1.1' })).toEqual({
      ok: false,
      refusal: 'call 1.1 was already decided: denied by bob at 2026-01-01T01:00:00.000Z: no',
    });
    expect(book.pending()).toEqual([]);
    expect(book.isWaiting).toBe(false);
    book.clear();
    expect(book.get('1.1')).toBeUndefined();
  });

  it('describes each kind of decision in one line', () => {
    expect(describeDecision(decision('1.1', { editedArgs: '{}' }))).toBe(
      'approved by ada at 2026-01-01T01:00:00.000Z with edited arguments',
    );
    expect(
      describeDecision(decision('1.1', { decision: 'timeout', by: 'timeout', reason: 'timed out after 1d' })),
    ).toBe('denied at 2026-01-01T01:00:00.000Z: timed out after 1d');
  });
});

describe('where policies come from', () => {
  it("the worker's catalogue carries each tool's policy: defineTool, SCRATCHPAD_APPROVE, MCP approve", async () => {
    const refund = defineTool({
      name: 'refund',
      description: 'Refund an order.',
      input: z.object({ id: z.string() }),
      approval: 'ask',
      run: () => 'refunded',
    });
    const lookup = defineTool({ name: 'lookup', description: 'Look up.', input: z.object({}), run: () => 'ok' });
    const odd = { name: 'odd', description: 'Odd.', input: z.object({}), run: () => 'ok' };
    expect(() => defineTool({ ...odd, approval: 'sometimes' as 'ask' })).toThrow("approval must be 'ask' or 'auto'");
    const registry = new ToolRegistry([refund, lookup], undefined, undefined, ['shell', 'fs_*']);
    const policies = Object.fromEntries(
      (await registry.catalogue()).tools.map((entry) => [entry.name, entry.policy.approval]),
    );
    expect(policies).toMatchObject({
      shell: 'ask',
      fs_write: 'ask',
      fs_read: 'ask',
      echo: 'auto',
      refund: 'ask',
      lookup: 'auto',
    });
    const config = { name: 'github', transport: 'http' as const, url: 'http://x', headers: {}, policy: {} };
    const listed = [
      { name: 'delete_repo', inputSchema: { type: 'object' as const } },
      { name: 'list_repos', inputSchema: { type: 'object' as const } },
    ];
    const mcp = catalogueOf({ ...config, policy: { approve: ['delete_*'] } }, listed, () => undefined);
    expect(mcp.tools.map((tool) => [tool.name, tool.policy.approval])).toEqual([
      ['github__delete_repo', 'ask'],
      ['github__list_repos', 'auto'],
    ]);
  });

  it("checks a person's edited arguments against the tool's schema", async () => {
    const registry = new ToolRegistry();
    expect(await registry.checkArgs('shell', { command: 'ls' })).toEqual({ ok: true });
    const bad = await registry.checkArgs('shell', { command: 1 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^invalid arguments for shell:\n/);
    expect(await registry.checkArgs('nope', {})).toEqual({ ok: false, error: 'nope is not a tool of this worker' });
  });

  it("an agent's settings and a sub-agent carry the agent's patterns and timeout into cycles", () => {
    const settings = AgentSettingsSchema().parse({ approve: ['shell'], approvalTimeoutMs: 60_000 });
    expect(settings).toMatchObject({ approve: ['shell'], approvalTimeoutMs: 60_000 });
    expect(AgentSettingsSchema().safeParse({ approve: ['bad pattern!'] }).success).toBe(false);
    expect(AgentSettingsSchema().safeParse({ approvalTimeoutMs: 10 }).success).toBe(false);
    const parent = AgentCycleInputSchema().parse({
      kind: 'task',
      agentId: 'a',
      before: defaultScratchpad('p'),
      approve: ['shell'],
      approvalTimeoutMs: 60_000,
    });
    const child = subagentInput({ parent, depth: 0 }, 'agent/a/cycle/1/sub/1', 'task', '');
    expect(child).toMatchObject({ approve: ['shell'], approvalTimeoutMs: 60_000 });
    expect(SubagentCycleInputSchema().safeParse(child).success).toBe(true);
  });
});
