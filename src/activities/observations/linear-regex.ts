import { RE2 } from 're2-wasm';
import { ReadError } from './read-error';

/**
 * A model-supplied pattern compiled for RE2, whose matching time is linear in the text: a backtracking engine
 * lets one pattern like `(a+)+$` hold the worker's event loop for minutes.
 */
export class LinearRegex {
  private readonly regex: RE2;
  private readonly offsets: UnitOffsets;

  constructor(
    pattern: string,
    ignoreCase: boolean,
    private readonly text: string,
  ) {
    try {
      // RE2 needs the u flag; with it, its indices count code points, not UTF-16 units.
      this.regex = new RE2(pattern, ignoreCase ? 'gmiu' : 'gmu');
    } catch (error) {
      throw new ReadError(describe(pattern, (error as Error).message));
    }
    this.offsets = new UnitOffsets(text);
  }

  /** UTF-16 index of the first match at or after UTF-16 index `from`, or undefined. */
  next(from: number): number | undefined {
    this.regex.lastIndex = this.offsets.toCodePoints(from);
    const match = this.regex.exec(this.text);
    return match === null ? undefined : this.offsets.toUnits(match.index);
  }
}

function describe(pattern: string, message: string): string {
  // Only these fail on RE2 but work on a backtracking engine; name them rather than RE2's parser state.
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(pattern)) {
    return (
      `unsupported regular expression /${pattern}/: backreferences and lookaround are not supported ` +
      '(patterns run on RE2, a linear-time engine)'
    );
  }
  return `invalid regular expression /${pattern}/: ${message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')}`;
}

/** Converts between UTF-16 and code-point offsets of one text; identity when it has no surrogate pairs. */
class UnitOffsets {
  /** UTF-16 offset of each character outside the BMP, ascending. */
  private readonly astral: number[] = [];

  constructor(text: string) {
    for (const match of text.matchAll(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)) this.astral.push(match.index);
  }

  toCodePoints(units: number): number {
    return units - countBelow(this.astral, units);
  }

  toUnits(codePoints: number): number {
    // The k-th astral character sits at code point astral[k] - k.
    let low = 0;
    let high = this.astral.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.astral[middle]! - middle < codePoints) low = middle + 1;
      else high = middle;
    }
    return codePoints + low;
  }
}

function countBelow(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
