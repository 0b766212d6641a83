import { RE2 } from 're2-wasm';
import { ReadError } from './read-error';

/**
 * RE2-wasm has a fixed 16 MB heap and copies its input in (a JS loop, about 50 ns a character) on every call. So
 * text is matched from the first line at or after the search position in growing slices of whole lines: a match
 * costs about the distance scanned, and cannot span two slices (a line longer than the largest slice is cut).
 */
export const REGEX_SLICE_UNITS = { first: 4 * 1024, max: 256 * 1024 } as const;

/**
 * A model-supplied pattern compiled for RE2, whose matching time is linear in the text: a backtracking engine
 * lets one pattern like `(a+)+$` hold the worker's event loop for minutes.
 */
export class LinearRegex {
  private readonly regex: RE2;

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
  }

  /** UTF-16 index of the first match at or after `from` (a line start), or undefined. */
  next(from: number): number | undefined {
    const { text } = this;
    let size: number = REGEX_SLICE_UNITS.first;
    for (let at = from; at < text.length;) {
      let end = Math.min(text.length, at + size);
      if (end < text.length) {
        const lineEnd = text.lastIndexOf('\n', end - 1);
        if (lineEnd >= at) {
          end = lineEnd + 1;
        } else if (size < REGEX_SLICE_UNITS.max) {
          // Not one whole line yet: a cut would make `$` match at it.
          size *= 2;
          continue;
        } else if (isHighSurrogate(text.charCodeAt(end - 1))) {
          end -= 1;
        }
      }
      const slice = text.slice(at, end);
      this.regex.lastIndex = 0;
      const match = this.regex.exec(slice);
      if (match !== null) return at + unitsBefore(slice, match.index);
      at = end;
      size = Math.min(size * 2, REGEX_SLICE_UNITS.max);
    }
    return undefined;
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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The UTF-16 offset of code point number `codePoints` in `text`. */
function unitsBefore(text: string, codePoints: number): number {
  if (!/[\uD800-\uDFFF]/.test(text)) return codePoints;
  let units = 0;
  for (let seen = 0; seen < codePoints; seen++) units += isHighSurrogate(text.charCodeAt(units)) ? 2 : 1;
  return units;
}
