import { headCodePoints, utf8Length } from '../../core/text';

// Pure text, shared by the cycle, staged and research details: no Temporal API, no Node built-ins.

/** Largest details text a run keeps in its memo or a cycle gets as static details, in UTF-8 bytes. */
export const DETAILS_BYTES = 32 * 1024;

/** Longest outcome line, in code points: the first line of the details, one line in the Web UI's memo. */
const OUTCOME_LINE_POINTS = 500;

/** Bytes kept back for the line naming the sections left out. */
const LEFT_OUT_BYTES = 1024;

/** `failed: <reason>` (or the bare outcome) on one line, capped: what the Web UI shows first for the run. */
export function outcomeLine(outcome: string, reason?: string): string {
  const line = (reason ? `${outcome}: ${reason}` : outcome).replace(/\s+/g, ' ').trim();
  return headCodePoints(line, OUTCOME_LINE_POINTS);
}

/** The first line of a markdown section: its heading, which names it where it was left out. */
function sectionName(section: string): string {
  const first = section.split('\n', 1)[0] ?? '';
  return headCodePoints(first.replace(/^#+\s*/, '').trim(), 80) || '(untitled)';
}

/**
 * Markdown `sections` joined by blank lines within `maxBytes`: the first (the outcome and what was asked) always,
 * cut if it must be; each other section whole or not at all, in order, and a last line naming the ones left out.
 * Never a section cut mid-way, so what shows is complete as far as it goes.
 */
export function withinSections(sections: readonly string[], maxBytes = DETAILS_BYTES): string {
  const [head = '', ...rest] = sections;
  const kept = [headCodePoints(head, Math.floor(maxBytes / 8))];
  const leftOut: string[] = [];
  let used = utf8Length(kept[0] ?? '');
  for (const section of rest) {
    const size = utf8Length(section) + 2;
    if (used + size <= maxBytes - LEFT_OUT_BYTES) {
      kept.push(section);
      used += size;
    } else leftOut.push(sectionName(section));
  }
  if (leftOut.length > 0) {
    // Within the bytes kept back, however wide the characters of the names.
    const names = headCodePoints(leftOut.join('; '), 200);
    kept.push(`_Left out to stay within ${maxBytes} bytes: ${leftOut.length} section(s): ${names}._`);
  }
  return kept.join('\n\n');
}
