const CHECKPOINT_EVERY = 1024;
const SURROGATE = /[\uD800-\uDFFF]/;

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
 * The indexes it needs are built once, lazily, so repeated reads of a large entry stay cheap.
 */
export class TextView {
  /** Length in code points. */
  readonly length: number;
  // UTF-16 offset of every CHECKPOINT_EVERY-th code point; absent when code points and UTF-16 units coincide.
  private readonly checkpoints: Int32Array | undefined;
  private starts: Int32Array | undefined;

  constructor(readonly text: string) {
    if (!SURROGATE.test(text)) {
      this.length = text.length;
      this.checkpoints = undefined;
      return;
    }
    const checkpoints: number[] = [];
    let points = 0;
    for (let unit = 0; unit < text.length; unit++, points++) {
      if (points % CHECKPOINT_EVERY === 0) checkpoints.push(unit);
      if (isHighSurrogate(text.charCodeAt(unit)) && isLowSurrogate(text.charCodeAt(unit + 1))) unit++;
    }
    this.length = points;
    this.checkpoints = Int32Array.from(checkpoints);
  }

  /** UTF-16 offset of code point `point` (clamped to the text). */
  unitOffset(point: number): number {
    const clamped = Math.max(0, Math.min(point, this.length));
    if (!this.checkpoints) return clamped;
    if (clamped === this.length) return this.text.length;
    const block = Math.floor(clamped / CHECKPOINT_EVERY);
    let unit = this.checkpoints[block] as number;
    for (let remaining = clamped - block * CHECKPOINT_EVERY; remaining > 0; remaining--) {
      unit += isHighSurrogate(this.text.charCodeAt(unit)) && isLowSurrogate(this.text.charCodeAt(unit + 1)) ? 2 : 1;
    }
    return unit;
  }

  /** Code points `[start, end)`, clamped to the text. */
  slice(start: number, end: number): string {
    return this.text.slice(this.unitOffset(start), this.unitOffset(Math.max(start, end)));
  }

  /** Code point index of a UTF-16 offset. */
  pointOffset(unit: number): number {
    if (!this.checkpoints) return unit;
    let low = 0;
    let high = this.checkpoints.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.checkpoints[middle] as number) <= unit) low = middle;
      else high = middle - 1;
    }
    let point = low * CHECKPOINT_EVERY;
    for (let at = this.checkpoints[low] as number; at < unit; point++) {
      at += isHighSurrogate(this.text.charCodeAt(at)) && isLowSurrogate(this.text.charCodeAt(at + 1)) ? 2 : 1;
    }
    return point;
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
