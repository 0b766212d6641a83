/**
 * The evidence rule (design.md, Verified means checked): the value occurs in the fetched content once both are
 * normalised for case, whitespace and digit grouping ("1,234,567", "1 234 567" and "1234567" are one number).
 */
export function normaliseEvidence(text: string): string {
  return text
    .toLowerCase()
    .replace(/(?<=\d)[,'\u00a0\u202f\u2009 _](?=\d{3}(?!\d))/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** True when the normalised value occurs as a whole token run: "2345" is not evidence for "12,345". */
export function valueOccursIn(content: string, value: string): boolean {
  const needle = normaliseEvidence(value);
  if (needle.length === 0) return false;
  const haystack = normaliseEvidence(content);
  const word = /[\p{L}\p{N}]/u;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + needle.length] ?? ' ';
    if (!(word.test(before) && word.test(needle[0] ?? '')) && !(word.test(after) && word.test(needle.at(-1) ?? ''))) {
      return true;
    }
  }
  return false;
}
