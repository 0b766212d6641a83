/** Characters a shell would interpret; there is no shell here, so they are refused rather than silently literal. */
const METACHARACTERS = new Set([';', '|', '&', '$', '`', '<', '>', '(', ')', '\\', '\n', '\r']);
/** Inside double quotes a shell still expands these. */
const DOUBLE_QUOTED_METACHARACTERS = new Set(['$', '`', '\\']);
const GLOBS = new Set(['*', '?']);

/** Splits a command line into argv with simple single and double quotes; refuses shell syntax with a clear error. */
export function splitCommandLine(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (const character of command) {
    if (quote) {
      if (character === quote) quote = undefined;
      else if (quote === '"' && DOUBLE_QUOTED_METACHARACTERS.has(character)) throw shellSyntaxError(character);
      else word = (word ?? '') + character;
    } else if (character === '"' || character === "'") {
      quote = character;
      word ??= '';
    } else if (/\s/.test(character) && character !== '\n' && character !== '\r') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (METACHARACTERS.has(character)) {
      throw shellSyntaxError(character);
    } else if (GLOBS.has(character)) {
      throw new Error(
        `"${character}" would be a glob, but there is no shell to expand it; quote the word to pass it literally`,
      );
    } else {
      word = (word ?? '') + character;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in command`);
  if (word !== undefined) words.push(word);
  return words;
}

function shellSyntaxError(character: string): Error {
  const shown = JSON.stringify(character);
  return new Error(
    `shell metacharacter ${shown} is not supported: commands run without a shell (no pipes, redirection, ` +
      'variables, substitution or chaining); run one program per call',
  );
}
