const SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Moves a UTF-16 offset back off the second half of a surrogate pair, so a slice never splits an emoji. */
export function pairSafeOffset(text: string, offset: number): number {
  const clamped = Math.max(0, Math.min(offset, text.length));
  return clamped > 0 && isLowSurrogate(text.charCodeAt(clamped)) && isHighSurrogate(text.charCodeAt(clamped - 1))
    ? clamped - 1
    : clamped;
}

/**
 * Read-only text addressed by Unicode code points (an emoji is one character, never split) and by line.
 * Its indexes are built lazily, once, so repeated reads of a large entry stay cheap and a grep never pays for
 * code point addressing.
 */
export class TextView {
  // UTF-16 offsets of the surrogate pairs (characters outside the BMP): the only places where code point
  // and UTF-16 offsets part. Absent until needed; empty for most text.
  private pairs: Int32Array | undefined;
  private starts: Int32Array | undefined;

  constructor(readonly text: string) {}

  /** Length in code points. */
  get length(): number {
    return this.text.length - this.pairOffsets().length;
  }

  /** UTF-16 offset of code point `point` (clamped to the text). */
  unitOffset(point: number): number {
    const pairs = this.pairOffsets();
    const clamped = Math.max(0, Math.min(point, this.text.length - pairs.length));
    // The i-th pair starts at code point pairs[i] - i; each pair before `clamped` adds one unit.
    let low = 0;
    let high = pairs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((pairs[middle] as number) - middle < clamped) low = middle + 1;
      else high = middle;
    }
    return clamped + low;
  }

  /** Code points `[start, end)`, clamped to the text. */
  slice(start: number, end: number): string {
    return this.text.slice(this.unitOffset(start), this.unitOffset(Math.max(start, end)));
  }

  /** Code point index of a UTF-16 offset. */
  pointOffset(unit: number): number {
    const pairs = this.pairOffsets();
    let low = 0;
    let high = pairs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((pairs[middle] as number) < unit) low = middle + 1;
      else high = middle;
    }
    return unit - low;
  }

  /** Number of lines; a final newline does not start another line, and empty text has none. */
  get lineCount(): number {
    return this.lineStarts().length;
  }

  /** UTF-16 range of line `line` (1-based), without its newline. */
  lineBounds(line: number): { start: number; end: number } {
    const starts = this.lineStarts();
    const start = starts[line - 1] as number;
    const next = starts[line];
    return { start, end: next === undefined ? this.text.length - (this.text.endsWith('\n') ? 1 : 0) : next - 1 };
  }

  /** The text of line `line` (1-based), without its newline. */
  line(line: number): string {
    const { start, end } = this.lineBounds(line);
    return this.text.slice(start, end);
  }

  /** The 1-based line holding UTF-16 offset `unit`. */
  lineAt(unit: number): number {
    const starts = this.lineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= unit) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  private pairOffsets(): Int32Array {
    if (this.pairs) return this.pairs;
    const offsets: number[] = [];
    if (SURROGATE.test(this.text)) {
      // One native regex scan: much faster than a character loop over megabytes.
      for (const match of this.text.matchAll(SURROGATE_PAIR)) offsets.push(match.index);
    }
    this.pairs = Int32Array.from(offsets);
    return this.pairs;
  }

  private lineStarts(): Int32Array {
    if (this.starts) return this.starts;
    const starts: number[] = this.text.length === 0 ? [] : [0];
    for (
      let at = this.text.indexOf('\n');
      at !== -1 && at + 1 < this.text.length;
      at = this.text.indexOf('\n', at + 1)
    ) {
      starts.push(at + 1);
    }
    this.starts = Int32Array.from(starts);
    return this.starts;
  }
}
