import type { Observation } from '../../core/observation';

/** Where and how tools may act. */
export interface ToolOptions {
  /** Absolute path; file tools and `shell` never leave it. */
  sandboxRoot: string;
  /** Programs `shell` may start (first word of the command). */
  shellAllow: readonly string[];
  shellTimeoutMs: number;
  /** Hosts `web_fetch` may reach; `*` allows any. */
  fetchAllowHosts: readonly string[];
  fetchMaxBytes: number;
  /** The activity's cancellation signal: aborts a waiting tool when the activity is cancelled or times out. */
  signal?: AbortSignal;
}

export type ToolImplementation = (args: Record<string, unknown>, options: ToolOptions) => Promise<Observation>;
