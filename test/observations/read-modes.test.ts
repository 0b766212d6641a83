import fc from 'fast-check';
import { READ_MAX_BYTES, READ_MAX_CHARS } from '../../src/core/tools/observation';
import { type ReadArgs, readBinary, readText } from '../../src/activities/observations/read-modes';
import { TextView } from '../../src/activities/observations/text-view';

const ID = '0123456789abcdef';
const read = (text: string, args: Partial<ReadArgs>) => readText(new TextView(text), { scratchpad_id: ID, ...args });

describe('TextView', () => {
  it('counts code points, so an emoji is one character and a slice never splits it', () => {
    const view = new TextView('ab😀cd');
    expect(view.length).toBe(5);
    expect(view.slice(0, 3)).toBe('ab😀');
    expect(view.slice(2, 3)).toBe('😀');
    expect(view.slice(3, 99)).toBe('cd');
  });

  it('addresses code points past many checkpoints the same way Array.from does', () => {
    const text = `${'x😀é'.repeat(3000)}end`;
    const points = Array.from(text);
    const view = new TextView(text);
    expect(view.length).toBe(points.length);
    for (const [start, end] of [
      [0, 1],
      [1023, 1025],
      [4095, 5000],
      [8999, 9003],
    ] as const) {
      expect(view.slice(start, end)).toBe(points.slice(start, end).join(''));
    }
    expect(view.pointOffset(view.unitOffset(5000))).toBe(5000);
  });

  it('slices like Array.from for any text and bounds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(60), fc.nat(60), (text, a, b) => {
        const points = Array.from(text);
        expect(new TextView(text).slice(a, b)).toBe(points.slice(a, Math.max(a, b)).join(''));
      }),
    );
  });
});

describe('readText: seed 002 modes', () => {
  const text = Array.from({ length: 2000 }, (_, index) => `line ${index + 1}`).join('\n');

  it('head and tail default to 2000 characters', () => {
    const head = read(text, {});
    expect(head.result).toBe(text.slice(0, 2000));
    expect(head.fields).toMatchObject({ start: 0, end: 2000, total_chars: text.length });
    const tail = read(text, { mode: 'tail' });
    expect(tail.result).toBe(text.slice(-2000));
    expect(tail.fields).toMatchObject({ start: text.length - 2000, end: text.length });
  });

  it('head and tail take n, cut at the read cap with a note', () => {
    expect(read(text, { mode: 'head', n: 5 }).result).toBe('line ');
    expect(read(text, { mode: 'tail', n: 4 }).result).toBe('2000');
    const big = read(text, { mode: 'head', n: 100_000 });
    expect(big.result).toHaveLength(READ_MAX_CHARS);
    expect(big.fields).toMatchObject({ truncated: true });
    expect(read(text, { mode: 'tail', n: 100_000 }).fields).toMatchObject({ truncated: true, end: text.length });
  });

  it('range is [start, end), clamped past the end, empty beyond it', () => {
    expect(read('abcdef', { mode: 'range', start: 1, end: 3 }).result).toBe('bc');
    expect(read('abcdef', { mode: 'range', start: 4, end: 100 })).toEqual({
      fields: { start: 4, end: 6, total_chars: 6 },
      result: 'ef',
    });
    expect(read('abcdef', { mode: 'range', start: 50, end: 60 })).toEqual({
      fields: { start: 6, end: 6, total_chars: 6 },
      result: '',
    });
    expect(read(text, { mode: 'range', start: 10 }).result).toBe(text.slice(10, 2010));
  });

  it('range over multi-byte text across a slice boundary keeps whole characters', () => {
    const emoji = 'a😀b🇫🇷c';
    expect(read(emoji, { mode: 'range', start: 0, end: 2 }).result).toBe('a😀');
    expect(read(emoji, { mode: 'range', start: 2, end: 3 }).result).toBe('b');
    // A flag is two code points: a slice between them keeps each whole.
    expect(read(emoji, { mode: 'range', start: 3, end: 4 }).result).toBe('🇫');
    expect(read(emoji, { mode: 'tail', n: 3 }).result).toBe('🇫🇷c');
  });

  it('refuses impossible ranges and a full read of a large entry', () => {
    expect(() => read(text, { mode: 'range' })).toThrow('mode range needs start');
    expect(() => read(text, { mode: 'range', start: 9, end: 3 })).toThrow('range end (3) is before start (9)');
    expect(() => read(`${text}${text}`, { mode: 'full' })).toThrow(
      /has \d+ characters, more than one full read returns \(8192\); use head, tail or range, lines or grep/,
    );
    expect(read('small', { mode: 'full' }).result).toBe('small');
  });

  it('reads an empty entry in every mode', () => {
    expect(read('', {}).result).toBe('');
    expect(read('', { mode: 'tail' }).result).toBe('');
    expect(read('', { mode: 'full' }).fields).toMatchObject({ total_chars: 0 });
    expect(read('', { mode: 'range', start: 3, end: 9 }).result).toBe('');
    expect(read('', { mode: 'lines' })).toMatchObject({ result: '', fields: { total_lines: 0 } });
    expect(read('', { mode: 'grep', pattern: '.*' })).toMatchObject({ result: '', fields: { matches: 0 } });
  });
});

describe('readText: lines', () => {
  const text = 'one\ntwo\nthree\nfour\n';

  it('returns lines N to M inclusive; a final newline starts no line', () => {
    expect(read(text, { mode: 'lines', line_start: 2, line_end: 3 })).toEqual({
      fields: { line_start: 2, line_end: 3, total_lines: 4 },
      result: 'two\nthree',
    });
    expect(read('a\r\nb', { mode: 'lines', line_start: 2 }).result).toBe('b');
  });

  it('clamps past the end and says so when it starts past the end', () => {
    expect(read(text, { mode: 'lines', line_start: 3, line_end: 99 }).result).toBe('three\nfour');
    const past = read(text, { mode: 'lines', line_start: 10, line_end: 12 });
    expect(past.result).toBe('');
    expect(past.fields).toMatchObject({ total_lines: 4, note: 'line 10 is past the last line (4)' });
    expect(() => read(text, { mode: 'lines', line_start: 5, line_end: 2 })).toThrow(
      'line_end (2) is before line_start (5)',
    );
  });

  it('stops at the read cap on a line boundary, and cuts a single huge line', () => {
    const long = Array.from({ length: 100 }, () => 'x'.repeat(99)).join('\n');
    const cut = read(long, { mode: 'lines', line_start: 1, line_end: 100 });
    expect(cut.fields).toMatchObject({ line_start: 1, line_end: 40, truncated: true });
    expect(cut.result.split('\n')).toHaveLength(40);
    expect(read('y'.repeat(10_000), { mode: 'lines' }).result).toHaveLength(READ_MAX_CHARS);
  });
});

describe('readText: grep', () => {
  const log = [
    'INFO a',
    'INFO b',
    'ERROR first',
    'INFO c',
    'INFO d',
    'INFO e',
    'INFO f',
    'error second',
    'INFO g',
  ].join('\n');

  it('shows numbered matches with context, "--" between groups', () => {
    const found = read(log, { mode: 'grep', pattern: 'ERROR', context: 1 });
    expect(found.result).toBe('2-INFO b\n3:ERROR first\n4-INFO c');
    expect(found.fields).toMatchObject({ pattern: 'ERROR', matches: 1, more_matches: false, total_lines: 9 });
    const both = read(log, { mode: 'grep', pattern: 'error', ignore_case: true, context: 1 });
    expect(both.result).toBe('2-INFO b\n3:ERROR first\n4-INFO c\n--\n7-INFO f\n8:error second\n9-INFO g');
  });

  it('caps matches and says more exist', () => {
    const capped = read(log, { mode: 'grep', pattern: '^INFO', context: 0, max_matches: 2 });
    expect(capped.result).toBe('1:INFO a\n2:INFO b');
    expect(capped.fields).toMatchObject({ matches: 2, more_matches: true });
  });

  it('counts each line once, including zero-width and line-anchored patterns', () => {
    expect(read('a\nb\n', { mode: 'grep', pattern: '^', context: 0 }).result).toBe('1:a\n2:b');
    expect(read('aaa\nb', { mode: 'grep', pattern: 'a', context: 0 }).result).toBe('1:aaa');
  });

  it('shows a long line around its match', () => {
    const line = `${'x'.repeat(5000)}NEEDLE${'y'.repeat(5000)}`;
    const shown = read(line, { mode: 'grep', pattern: 'NEEDLE' }).result;
    expect(shown).toMatch(/^1:…x{100}NEEDLEy+…$/);
    expect(shown.length).toBeLessThan(320);
  });

  it('refuses an invalid regular expression and a missing pattern', () => {
    expect(() => read(log, { mode: 'grep', pattern: '(unclosed' })).toThrow(
      /invalid regular expression \/\(unclosed\/:/,
    );
    expect(() => read(log, { mode: 'grep' })).toThrow('mode grep needs pattern');
  });
});

describe('readBinary', () => {
  const bytes = Buffer.from(Array.from({ length: 5000 }, (_, index) => index % 256));
  const readBytes = (args: Partial<ReadArgs>) => readBinary(bytes, { scratchpad_id: ID, ...args });

  it('returns base64 slices counted in bytes', () => {
    const head = readBytes({ n: 4 });
    expect(Buffer.from(head.result, 'base64')).toEqual(bytes.subarray(0, 4));
    expect(head.fields).toMatchObject({ start: 0, end: 4, total_bytes: 5000, encoding: 'base64' });
    expect(Buffer.from(readBytes({ mode: 'range', start: 300, end: 310 }).result, 'base64')).toEqual(
      bytes.subarray(300, 310),
    );
    expect(Buffer.from(readBytes({ mode: 'tail', n: 2 }).result, 'base64')).toEqual(bytes.subarray(4998));
    expect(readBytes({ mode: 'head', n: 99_999 }).fields).toMatchObject({ end: READ_MAX_BYTES, truncated: true });
  });

  it('refuses text modes and an oversized full read', () => {
    expect(() => readBytes({ mode: 'lines' })).toThrow(/this entry is binary/);
    expect(() => readBytes({ mode: 'grep', pattern: 'x' })).toThrow(/this entry is binary/);
    expect(() => readBytes({ mode: 'full' })).toThrow(/5000 bytes, more than one full read returns \(3000\)/);
  });
});

describe('readText: grep on a linear-time engine', () => {
  it('answers a catastrophic-backtracking pattern over 50 KB at once', () => {
    const started = performance.now();
    const found = read(`${'a'.repeat(50_000)}b`, { mode: 'grep', pattern: '(a+)+$' });
    expect(performance.now() - started).toBeLessThan(100);
    expect(found.fields).toMatchObject({ matches: 0 });
  });

  it.each([
    ['(a)\\1', /backreferences and lookaround are not supported/],
    ['a(?=b)', /backreferences and lookaround are not supported/],
    ['(?<!x)a', /backreferences and lookaround are not supported/],
  ])('refuses %s with a clear error', (pattern, message) => {
    expect(() => read('ab', { mode: 'grep', pattern })).toThrow(message);
  });

  it('reports line numbers right after characters outside the BMP', () => {
    const text = '😀😀 one\n😀 two NEEDLE\nthree NEEDLE 😀\nfour';
    expect(read(text, { mode: 'grep', pattern: 'NEEDLE', context: 0 }).result).toBe(
      '2:😀 two NEEDLE\n3:three NEEDLE 😀',
    );
  });
});

describe('readText: grep over text larger than one RE2 chunk', () => {
  it('finds matches in every chunk with the right line numbers', () => {
    const lines = Array.from(
      { length: 60_000 },
      (_, index) => `line ${index + 1} 😀 ${index % 20_000 === 0 ? 'HIT' : 'x'.repeat(20)}`,
    );
    const found = read(lines.join('\n'), { mode: 'grep', pattern: 'HIT$', context: 0 });
    expect(found.result).toBe(['1:line 1 😀 HIT', '20001:line 20001 😀 HIT', '40001:line 40001 😀 HIT'].join('\n--\n'));
  });

  it('handles a single line longer than a chunk', () => {
    const found = read(`${'ab'.repeat(400_000)}NEEDLE\nnext`, { mode: 'grep', pattern: 'NEEDLE|next', context: 0 });
    expect(found.fields).toMatchObject({ matches: 2 });
  });
});
