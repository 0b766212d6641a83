import { builtOnFirstCall } from '../../../src/core/shareable';
import { TOOL_ARGS } from '../../../src/core/tools/catalogue';

describe('builtOnFirstCall', () => {
  it('builds each value once, on its first call, and lists every key from the start', () => {
    const built: string[] = [];
    const record = builtOnFirstCall({
      a: () => (built.push('a'), { value: 1 }),
      b: () => (built.push('b'), { value: 2 }),
    });
    expect(Object.keys(record)).toEqual(['a', 'b']);
    expect(Object.hasOwn(record, 'b')).toBe(true);
    expect(built).toEqual([]);
    const first = record.a();
    expect(record.a()).toBe(first);
    expect(first.value).toBe(1);
    expect(built).toEqual(['a']);
  });

  it('builds nothing when the record is frozen, as a worker freezes the exports of shared modules', () => {
    const built: string[] = [];
    const record = Object.freeze(builtOnFirstCall({ a: () => (built.push('a'), { value: 1 }) }));
    expect(built).toEqual([]);
    expect(record.a().value).toBe(1);
  });

  it('serves the tool schemas as before', () => {
    expect(TOOL_ARGS.echo().safeParse({ message: 'hi' }).success).toBe(true);
    expect(TOOL_ARGS.shell().safeParse({ command: 1 }).success).toBe(false);
    expect(Object.keys(TOOL_ARGS)).toContain('scratchpad_read');
  });
});
