import type { z } from 'zod';
import { READ_DEFAULT_CHARS, READ_FULL_MAX_CHARS, READ_MAX_BYTES, READ_MAX_CHARS } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';
import { grepText } from './grep';
import { ReadError } from './read-error';
import type { TextView } from './text-view';

export type ReadArgs = z.infer<ReturnType<typeof TOOL_ARGS.scratchpad_read>>;
export type ReadMode = NonNullable<ReadArgs['mode']>;

/** What a read returns besides its text: where the slice lies, whether it was cut. */
export interface ReadSlice {
  fields: Record<string, unknown>;
  result: string;
}

interface Span {
  start: number;
  end: number;
  truncated: boolean;
}

/**
 * The `[start, end)` span a character or byte mode asks for, clamped to `length` and to `max` units; `full`
 * serves up to `fullMax` units whole.
 */
function spanOf(args: ReadArgs, length: number, unit: string, max: number, fullMax = max): Span {
  const mode = args.mode ?? 'head';
  const n = args.n ?? Math.min(READ_DEFAULT_CHARS, max);
  let start: number;
  let end: number;
  if (mode === 'full') {
    if (length > fullMax) {
      throw new ReadError(
        `the entry has ${length} ${unit}, more than one full read returns (${fullMax}); use head, tail or range` +
          (unit === 'characters' ? ', lines or grep' : ''),
      );
    }
    return { start: 0, end: length, truncated: false };
  } else if (mode === 'head') {
    [start, end] = [0, n];
  } else if (mode === 'tail') {
    return { start: Math.max(0, length - Math.min(n, max)), end: length, truncated: n > max && length > max };
  } else {
    if (args.start === undefined) throw new ReadError('mode range needs start (and optionally end)');
    start = args.start;
    end = args.end ?? start + READ_DEFAULT_CHARS;
    if (end < start) throw new ReadError(`range end (${end}) is before start (${start})`);
  }
  start = Math.min(start, length);
  const wanted = Math.min(end, length);
  end = Math.min(wanted, start + max);
  return { start, end, truncated: end < wanted };
}

function sliceFields(span: Span, total: Record<string, number>, unit: 'characters' | 'bytes'): Record<string, unknown> {
  return {
    start: span.start,
    end: span.end,
    ...total,
    ...(span.truncated
      ? { truncated: true, note: `cut at ${span.end - span.start} ${unit}; use range to read more` }
      : {}),
  };
}

/**
 * Reads text by characters (code points), lines or grep (design.md, Reading with scratchpad_read); `full` returns
 * up to `fullMax` characters, so an entry a little over the threshold still reads whole.
 */
export function readText(view: TextView, args: ReadArgs, fullMax = READ_FULL_MAX_CHARS): ReadSlice {
  const mode = args.mode ?? 'head';
  if (mode === 'lines') return readLines(view, args);
  if (mode === 'grep') {
    if (args.pattern === undefined) throw new ReadError('mode grep needs pattern');
    return grepText(view, {
      pattern: args.pattern,
      ignoreCase: args.ignore_case ?? false,
      context: args.context ?? 2,
      maxMatches: args.max_matches ?? 20,
      maxChars: READ_MAX_CHARS,
    });
  }
  const span = spanOf(args, view.length, 'characters', READ_MAX_CHARS, Math.min(fullMax, READ_FULL_MAX_CHARS));
  return {
    fields: sliceFields(span, { total_chars: view.length }, 'characters'),
    result: view.slice(span.start, span.end),
  };
}

function readLines(view: TextView, args: ReadArgs): ReadSlice {
  const first = args.line_start ?? 1;
  const last = args.line_end ?? first + 99;
  if (last < first) throw new ReadError(`line_end (${last}) is before line_start (${first})`);
  const total = view.lineCount;
  const lines: string[] = [];
  let chars = 0;
  let truncated = false;
  for (let line = first; line <= Math.min(last, total); line++) {
    const text = view.line(line);
    if (chars + text.length > READ_MAX_CHARS) {
      if (lines.length === 0) lines.push(text.slice(0, READ_MAX_CHARS));
      truncated = true;
      break;
    }
    lines.push(text);
    chars += text.length + 1;
  }
  const shownLast = lines.length === 0 ? Math.min(first - 1, total) : first + lines.length - 1;
  return {
    fields: {
      line_start: first,
      line_end: shownLast,
      total_lines: total,
      ...(truncated
        ? { truncated: true, note: `cut at ${READ_MAX_CHARS} characters; read on from line ${shownLast + 1}` }
        : {}),
      ...(first > total ? { note: `line ${first} is past the last line (${total})` } : {}),
    },
    result: lines.join('\n'),
  };
}

/** Reads a binary entry by bytes; the slice comes back as base64. */
export function readBinary(bytes: Buffer, args: ReadArgs): ReadSlice {
  const mode = args.mode ?? 'head';
  if (mode === 'lines' || mode === 'grep') {
    throw new ReadError(`mode ${mode} reads text; this entry is binary: use full, head, tail or range (bytes, base64)`);
  }
  const span = spanOf(args, bytes.byteLength, 'bytes', READ_MAX_BYTES);
  return {
    fields: { ...sliceFields(span, { total_bytes: bytes.byteLength }, 'bytes'), encoding: 'base64' },
    result: bytes.subarray(span.start, span.end).toString('base64'),
  };
}
