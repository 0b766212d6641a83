const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;

const DURATION = /^(?:\d+(?:ms|s|m|h|d))+$/;
const PART = /(\d+)(ms|s|m|h|d)/g;

/** `30s`, `5m`, `1h30m`, `2d` → milliseconds; undefined when the text is not such a duration or is zero. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) total += Number(amount) * UNIT_MS[unit as Unit];
  return total > 0 && Number.isSafeInteger(total) ? total : undefined;
}

/** Milliseconds → the spelling `parseDuration` reads back, largest units first (`1h30m`). */
export function formatDuration(milliseconds: number): string {
  let rest = milliseconds;
  const parts: string[] = [];
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}
