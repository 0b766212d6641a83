/*
 * Text as the evidence rule compares it (design.md, Verified means checked): a fetched page and a worker's quote
 * are compared after the same normalisation, so a quote counts as verbatim whatever the page's markup, spacing,
 * case, typographic quotes or digit grouping. Every pass is linear in the text: pages are untrusted and large.
 */

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '-',
  mdash: '-',
  lsquo: "'",
  rsquo: "'",
  ldquo: '"',
  rdquo: '"',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
};

/** Elements whose content is no text a reader sees. */
const HIDDEN = ['script', 'style'];

/** The text of HTML (tags out, each a space; script and style dropped); plain text comes back unchanged. */
export function markupToText(content: string): string {
  let text = '';
  let at = 0;
  let closing = content.indexOf('>');
  const lower = content.toLowerCase();
  while (at < content.length) {
    const open = content.indexOf('<', at);
    if (open < 0 || closing < 0) break;
    if (closing < open) closing = content.indexOf('>', open);
    if (closing < 0) break;
    const next = content.charAt(open + 1);
    const inner = content.indexOf('<', open + 1);
    // Only something shaped like a tag is one: "a < b" in prose stays text.
    if (!/[a-zA-Z/!]/.test(next) || (inner >= 0 && inner < closing)) {
      text += content.slice(at, open + 1);
      at = open + 1;
      continue;
    }
    text += `${content.slice(at, open)} `;
    at = closing + 1;
    const name = /^[a-z]+/.exec(lower.slice(open + 1, open + 8))?.[0];
    if (name && HIDDEN.includes(name)) {
      const end = lower.indexOf(`</${name}`, at);
      at = end < 0 ? content.length : end;
    }
  }
  return text + content.slice(at);
}

/** Character references decoded: named ones people write, and numeric ones. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * A text normalised for comparison: compatibility forms folded (NFKC: full-width digits, ligatures, no-break
 * spaces), typographic quotes and dashes made plain, lower case, whitespace collapsed, digit groups joined
 * ("1,234,567", "1 234 567" and "1234567" are one number).
 */
export function normaliseEvidenceText(text: string): string {
  return (
    text
      .normalize('NFKC')
      .replace(/[\u2018\u2019\u201a\u201b\u2032\u0060\u00b4]/g, "'")
      .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
      .replace(/[\u2010-\u2015\u2212]/g, '-')
      .toLowerCase()
      .replace(/(?<=\d)[,'_](?=\d{3}(?!\d))/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      // Spaces group digits only in a number grouped throughout: "77,000 300" (two table cells) stays two numbers.
      .replace(/(?<![\d.,])\d{1,3}(?: \d{3})+(?!\d)/g, (number) => number.replace(/ /g, ''))
  );
}

/** A fetched page as the rule reads it: HTML to text, references decoded, normalised. */
export function pageText(content: string): string {
  return normaliseEvidenceText(decodeEntities(markupToText(content)));
}

/** A quote, a value or a name as the rule reads it: a model may quote markup or references too. */
export function claimText(text: string): string {
  return normaliseEvidenceText(decodeEntities(markupToText(text)));
}

/** The page's title: its `<title>`, else its first `<h1>`; empty for plain text. */
export function pageTitle(content: string): string {
  const lower = content.slice(0, 200_000).toLowerCase();
  for (const tag of ['title', 'h1']) {
    const open = lower.indexOf(`<${tag}`);
    if (open < 0) continue;
    const start = lower.indexOf('>', open);
    const end = lower.indexOf(`</${tag}`, start);
    if (start >= 0 && end > start) return claimText(content.slice(start + 1, Math.min(end, start + 2000)));
  }
  return '';
}

const WORD = /[\p{L}\p{N}]/u;

/** True when `char` is part of a word: a letter or a digit, in any script. */
export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && char !== '' && WORD.test(char);
}

/** Where a normalised needle occurs in a normalised text. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Every place `needle` occurs in `text` as whole words: "2345" is not in "12,345", "rev" not in "revenue". With
 * `plural`, an "s" or "es" may follow ("employee" names "employees").
 */
export function wordSpans(text: string, needle: string, plural = false): Span[] {
  const spans: Span[] = [];
  if (needle === '') return spans;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    let end = at + needle.length;
    if (plural && isWordChar(needle.at(-1))) {
      if (text.startsWith('es', end) && !isWordChar(text[end + 2])) end += 2;
      else if (text[end] === 's' && !isWordChar(text[end + 1])) end += 1;
    }
    const joinsBefore = isWordChar(text[at - 1]) && isWordChar(needle[0]);
    const joinsAfter = isWordChar(text[end]) && isWordChar(needle.at(-1));
    if (!joinsBefore && !joinsAfter) spans.push({ start: at, end });
  }
  return spans;
}

/** Letters and digits only, lower case: how a label and a value are compared, and how a URL names an entity. */
export function bareWords(text: string): string[] {
  return normaliseEvidenceText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}
