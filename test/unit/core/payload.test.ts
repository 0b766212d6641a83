import { newestWithin, oldestWithin, payloadBytes, payloadRefusal } from '../../../src/core/payload';
import { utf8Length } from '../../../src/core/text';

describe('payload budget', () => {
  it('measures JSON as UTF-8 bytes, escapes included', () => {
    expect(payloadBytes('é')).toBe(4);
    expect(payloadBytes('\u0001')).toBe(8);
    expect(payloadBytes(undefined)).toBe(0);
    expect(payloadBytes(['a', 'b'])).toBe(JSON.stringify(['a', 'b']).length);
  });

  it('counts UTF-8 bytes as Buffer does, for ASCII and for text beyond it', () => {
    const texts = [
      '',
      'plain ASCII ~\u007f',
      'é',
      'a€b',
      '😀',
      'x😀y€é',
      '\ud83d',
      'lone \ude00 low',
      'x'.repeat(5000) + 'é',
    ];
    for (const text of texts) expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('refuses what is over the budget, naming it and its size', () => {
    expect(payloadRefusal('x'.repeat(10), 'a directive', 100)).toBeNull();
    expect(payloadRefusal('x'.repeat(100), 'a directive', 100)).toBe(
      'a directive would be 102 bytes, over the payload budget of 100',
    );
  });

  it('keeps the newest or oldest items whose array fits, in order', () => {
    const items = ['aaaa', 'bbbb', 'cccc', 'dddd'];
    const size = (list: string[]) => payloadBytes(list);
    expect(newestWithin(items, size(['cccc', 'dddd']))).toEqual(['cccc', 'dddd']);
    expect(oldestWithin(items, size(['aaaa', 'bbbb']))).toEqual(['aaaa', 'bbbb']);
    expect(newestWithin(items, 1000)).toEqual(items);
    expect(oldestWithin(items, 3)).toEqual([]);
    for (const budget of [2, 8, 13, 20, 27])
      expect(size(newestWithin(items, budget))).toBeLessThanOrEqual(Math.max(budget, 2));
  });
});
