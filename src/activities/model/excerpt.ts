/**
 * Characters of text from outside the worker (a response body, a provider's message) that a failure quotes: enough
 * to recognise what answered, never a page of it.
 */
export const QUOTED_CHARS = 120;

/**
 * `text` as one short line for a failure message: control and format characters (newlines, terminal escapes, bidi
 * overrides) become spaces, runs of space one, and it is cut to `max` characters with an ellipsis.
 */
export function excerpt(text: string, max = QUOTED_CHARS): string {
  const line = text
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const characters = Array.from(line);
  return characters.length <= max ? line : `${characters.slice(0, max - 1).join('')}…`;
}

/** A model spec as a failure quotes it: one line, cut to about 100 characters, a URL's userinfo left out. */
export function quotedSpec(spec: string): string {
  return excerpt(spec.replace(/\/\/[^/?#\s]*@/g, '//***@'), 100);
}
