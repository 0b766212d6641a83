import { lazyRecord } from '../../src/core/lazy';
import { TOOL_ARGS } from '../../src/core/tools';

describe('lazyRecord', () => {
  it('builds each property once, on first read, and lists every key from the start', () => {
    const built: string[] = [];
    const record = lazyRecord({
      a: () => (built.push('a'), { value: 1 }),
      b: () => (built.push('b'), { value: 2 }),
    });
    expect(Object.keys(record)).toEqual(['a', 'b']);
    expect(Object.hasOwn(record, 'b')).toBe(true);
    expect(built).toEqual([]);
    const first = record.a;
    expect(record.a).toBe(first);
    expect(record.a.value).toBe(1);
    expect(built).toEqual(['a']);
  });

  it('serves the tool schemas as before', () => {
    expect(TOOL_ARGS.echo.safeParse({ message: 'hi' }).success).toBe(true);
    expect(TOOL_ARGS.shell.safeParse({ command: 1 }).success).toBe(false);
    expect(Object.keys(TOOL_ARGS)).toContain('spawn_subagent');
  });
});
