import { pairSafeOffset, type TextView } from './text-view';
import { LinearRegex } from './linear-regex';
import type { ReadSlice } from './read-modes';

/** Longest part of one line a grep shows; a longer line is shown around its match. */
export const GREP_LINE_CHARS = 300;
const BEFORE_MATCH_CHARS = 100;

/** A grep over an entry's lines. */
export interface GrepOptions {
  pattern: string;
  ignoreCase: boolean;
  /** Lines shown before and after each matching line. */
  context: number;
  /** Matching lines shown at most. */
  maxMatches: number;
  /** Characters of output at most. */
  maxChars: number;
}

interface Match {
  line: number;
  at: number;
}

/** Lines of `view` matching a pattern, `grep -n` style: "N:" for a match, "N-" for context, "--" between groups. */
export function grepText(view: TextView, options: GrepOptions): ReadSlice {
  const regex = new LinearRegex(options.pattern, options.ignoreCase, view.text);
  const { matches, more } = findMatches(view, regex, options.maxMatches);
  const { text, truncated } = render(view, matches, options);
  return {
    fields: {
      pattern: options.pattern,
      matches: matches.length,
      more_matches: more,
      total_lines: view.lineCount,
      ...(truncated
        ? { truncated: true, note: `cut at ${options.maxChars} characters; lower context or max_matches` }
        : {}),
    },
    result: text,
  };
}

// One regex scan over the whole text (not one test per line): after a hit, jump to the next line.
function findMatches(view: TextView, regex: LinearRegex, maxMatches: number): { matches: Match[]; more: boolean } {
  const matches: Match[] = [];
  if (view.text === '') return { matches, more: false };
  for (let at = regex.next(0); at !== undefined; at = regex.next(view.lineBounds(matches.at(-1)!.line).end + 1)) {
    const line = view.lineAt(at);
    // A match after a final newline belongs to no line.
    if (line === matches.at(-1)?.line) break;
    if (matches.length === maxMatches) return { matches, more: true };
    matches.push({ line, at });
  }
  return { matches, more: false };
}

function render(view: TextView, matches: Match[], options: GrepOptions): { text: string; truncated: boolean } {
  const hits = new Map(matches.map((match) => [match.line, match.at]));
  const output: string[] = [];
  let chars = 0;
  let previous = 0;
  for (const { line } of matches) {
    const first = Math.max(1, line - options.context, previous + 1);
    const last = Math.min(view.lineCount, line + options.context);
    for (let current = first; current <= last; current++) {
      const at = hits.get(current);
      const shown = `${current}${at === undefined ? '-' : ':'}${excerpt(view, current, at)}`;
      const separator = previous > 0 && current > previous + 1 ? '--\n' : '';
      if (chars + separator.length + shown.length > options.maxChars)
        return { text: output.join('\n'), truncated: true };
      output.push(`${separator}${shown}`);
      chars += separator.length + shown.length + 1;
      previous = current;
    }
  }
  return { text: output.join('\n'), truncated: false };
}

function excerpt(view: TextView, line: number, at: number | undefined): string {
  const { start, end } = view.lineBounds(line);
  if (end - start <= GREP_LINE_CHARS) return view.text.slice(start, end);
  const from = pairSafeOffset(view.text, at === undefined ? start : Math.max(start, at - BEFORE_MATCH_CHARS));
  const to = pairSafeOffset(view.text, Math.min(end, from + GREP_LINE_CHARS));
  return `${from > start ? '…' : ''}${view.text.slice(from, to)}${to < end ? '…' : ''}`;
}
