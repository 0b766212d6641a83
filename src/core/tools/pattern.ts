// No imports: the command line checks `--tools` with this at start-up, before anything heavy loads.

// Not exported: a worker deep-freezes what its shared workflow modules export, and a frozen regex cannot be used.
const TOOL_PATTERN = /^[A-Za-z0-9_*?-]{1,100}$/;

/** Most patterns one list (settings, a cycle's input, `--tools`) holds. */
export const MAX_TOOL_PATTERNS = 100;

/** Whether `text` is a tool pattern: a name, or a glob with `*` (any run of characters) and `?` (one character). */
export function isToolPattern(text: string): boolean {
  return TOOL_PATTERN.test(text);
}
