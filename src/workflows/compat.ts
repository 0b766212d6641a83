/**
 * Every `patched()` id the workflow code uses, with why and since when (sdk-typescript's flags.ts keeps its own the
 * same way). Before 1.0 the saved histories are the project's own fixtures: a change to workflow code re-records them
 * (scripts/record-histories.ts) instead of adding a patch, and workflows still open from an earlier version are
 * drained or reset before workers are upgraded (README, Upgrading). A patch added from now on is listed here, and
 * test/unit/compat.test.ts fails on a `patched(` whose id is not.
 */
export interface CompatPatch {
  /** The id passed to `patched()`. */
  id: string;
  /** What histories recorded before it do differently. */
  why: string;
  /** The package version that introduced it. */
  since: string;
}

export const PATCHES: readonly CompatPatch[] = [
  {
    id: 'tool-catalogue',
    why: "a cycle lists the worker's tools (the listTools local activity) before its first model call",
    since: '0.3.0',
  },
  {
    id: 'staged-files',
    why:
      "runVerification is sent references to the stages' files, which it restores into its worker's sandbox " +
      'before running: a staged run can move between worker hosts',
    since: '0.4.0',
  },
  {
    id: 'research-bounded-loop',
    why:
      'a research supervisor also wakes when its history is due to continue as new (a flood of dropped messages grows ' +
      'it without changing the board), and ends incomplete rather than hand over a board past the payload budget',
    since: '0.4.0',
  },
  {
    id: 'research-mirror-lane',
    why:
      'a research run with a Redis mirror mirrors beside its loop (batches it does not await, bounded retries, a ' +
      'note when it gives up) instead of awaiting the mirror after every evaluation',
    since: '0.4.0',
  },
  {
    id: 'reply-first',
    why:
      "a chat cycle started by an agent signals it the reply (`reply`) once respond ends, before reflect, so the agent's " +
      '`send` answers at once',
    since: '0.4.0',
  },
  {
    id: 'approvals',
    why:
      "a cycle lists the worker's tools even when it names only built-ins: whether a tool asks for approval is the " +
      "worker's policy (SCRATCHPAD_APPROVE), which only the catalogue carries",
    since: '0.4.0',
  },
  {
    id: 'chunked-known-archive',
    why:
      'a cut of UNDERSTANDING / Known frees a quarter of the section cap more than needed, so the cached prompt ' +
      'prefix it sits in lasts from one cut to the next',
    since: '0.4.0',
  },
  {
    id: 'research-worker-capabilities',
    why:
      'a research supervisor gives each worker a capability token its writes must present, forwards directives to ' +
      'the workers running (signals), and asks its own model for the new search query after a tombstone',
    since: '0.4.0',
  },
  {
    id: 'research-approvals',
    why:
      "a research worker relays its investigation cycle's approval waits to the supervisor (signals), so the run's " +
      'status and Web UI say which fact waits for a decision',
    since: '0.4.0',
  },
  {
    id: 'ui-outcome-memo',
    why:
      'a cycle, staged run or research run records its outcome line and details in its memo at its end (the Web UI ' +
      "shows a closed workflow's memo with no worker running); a cancelled cycle or staged run, and a research run " +
      'that fails or is cancelled, also set `CycleOutcome` before they end',
    since: '0.5.0',
  },
  {
    id: 'settings-memo',
    why: "`configure` writes the agent's memo at once, so `status` and `export` read the new settings with no worker",
    since: '0.5.0',
  },
];
