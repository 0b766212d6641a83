/**
 * Whether the server failed with SQLite's "interrupted (9)": what a dev server of a Temporal CLI whose SQLite driver is
 * older than modernc.org/sqlite v1.40.1 answers to every call once stuck (see src/dev-server/go-install.ts).
 */
export function isStuckDevServer(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause) {
    if (cause.message.includes('interrupted (9)')) return true;
  }
  return false;
}

export const STUCK_DEV_SERVER_HINT =
  'If every call fails so, the dev server is stuck: a Temporal CLI whose SQLite driver is older than ' +
  "modernc.org/sqlite v1.40.1 (v1.5.1's is) stays so after one cancelled call. Restart it (`scratchpad down`, then " +
  '`scratchpad up`, if scratchpad started it). Such a `temporal` on PATH or in TEMPORAL_CLI_PATH will do it again; ' +
  "scratchpad's own build, used when neither names one, has the fix.";
