import { dispatch, recordToolResult } from '../../../../src/core/cycle/dispatch';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';

const tools = ['echo', 'shell'];
const base = {
  ...defaultScratchpad(),
  current_task: 'Run the echo tool',
  pending_actions: ['Write hello.txt', 'Signal done'],
};

describe('dispatcher (seed 000)', () => {
  it('asks for a work tool and records its result in notes, queue unchanged', () => {
    const step = dispatch(base, { ok: true, action: { tool: 'echo', args: { message: 'Hello!' } } }, tools);
    expect(step.kind).toBe('tool');
    expect(step.state).toBe(base);
    if (step.kind !== 'tool') return;
    const next = recordToolResult(step.state, step.action, { ok: true, result: 'ECHO: Hello!' });
    expect(next.notes).toBe('[TOOL] echo({"message":"Hello!"}) → ECHO: Hello!');
    expect(next.current_task).toBe(base.current_task);
    expect(next.pending_actions).toEqual(base.pending_actions);
  });

  it('cuts a tool result at 1500 characters in notes (seed 002)', () => {
    const next = recordToolResult(base, { tool: 'echo', args: {} }, { ok: true, result: 'x'.repeat(2000) });
    const line = next.notes.split('\n').pop() as string;
    expect(line).toBe(`[TOOL] echo({}) → ${'x'.repeat(1500)}`);
  });

  it('applies update_scratchpad: pending replaced, completed extended', () => {
    const step = dispatch(
      { ...base, completed_tasks: ['earlier'] },
      {
        ok: true,
        action: { tool: 'update_scratchpad', args: { pending_actions: ['Only this'], completed_tasks: ['x'] } },
      },
      tools,
    );
    expect(step.kind).toBe('update');
    expect(step.state.pending_actions).toEqual(['Only this']);
    expect(step.state.completed_tasks).toEqual(['earlier', 'x']);
  });

  it('notes a rejected update and keeps the state', () => {
    const step = dispatch(base, { ok: true, action: { tool: 'update_scratchpad', args: { wrong: 'x' } } }, tools);
    expect(step.kind).toBe('update');
    expect(step.state.notes).toMatch(/^\[UPDATE REJECTED\] unknown key "wrong"/);
    expect({ ...step.state, notes: base.notes }).toEqual(base);
  });

  it('done moves current_task to completed_tasks and pops the next pending action', () => {
    const step = dispatch(base, { ok: true, action: { tool: 'done', args: { summary: 'Echoed hello' } } }, tools);
    expect(step.kind).toBe('done');
    expect(step.state.completed_tasks).toEqual([{ task: 'Run the echo tool', summary: 'Echoed hello' }]);
    expect(step.state.current_task).toBe('Write hello.txt');
    expect(step.state.pending_actions).toEqual(['Signal done']);
    expect(step.state.notes).toBe('[COMPLETED] Echoed hello');
  });

  it('done with an empty queue leaves no current task', () => {
    const step = dispatch(
      { ...base, pending_actions: [] },
      { ok: true, action: { tool: 'done', args: { summary: 's' } } },
      tools,
    );
    expect(step.state.current_task).toBeNull();
  });

  it('a parse failure notes [PARSE ERROR] and does not finish', () => {
    const step = dispatch(base, { ok: false, error: 'no JSON object in response: hmm' }, tools);
    expect(step.kind).toBe('parse_error');
    expect(step.state.notes).toBe('[PARSE ERROR] no JSON object in response: hmm');
  });

  it('an unknown tool is an error observation, not an activity call', () => {
    const step = dispatch(base, { ok: true, action: { tool: 'rm_rf', args: {} } }, tools);
    expect(step.kind).toBe('unknown_tool');
    expect(step.state.notes).toMatch(/\[TOOL\] rm_rf\(\{\}\) → ERROR: unknown tool "rm_rf"/);
  });
});
