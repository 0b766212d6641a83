import type { Observation } from '../../core/tools/observation';

/** Where and how tools may act. */
export interface ToolOptions {
  /** Absolute path; file tools and `shell` never leave it. */
  sandboxRoot: string;
  /** Programs `shell` may start (first word of the command). */
  shellAllow: readonly string[];
  shellTimeoutMs: number;
  /** Run `shell` without bubblewrap, behind an argument guard only (SCRATCHPAD_SHELL_UNCONFINED). */
  shellUnconfined?: boolean;
  /** Hosts `web_fetch` may reach; `*` allows any public address. Empty denies every host. */
  fetchAllowHosts: readonly string[];
  /** CIDR ranges of non-public addresses (loopback, private, link-local…) `web_fetch` may reach; default none. */
  fetchAllowAddresses?: readonly string[];
  /** Ports `web_fetch` may reach; default 80 and 443. */
  fetchAllowPorts?: readonly number[];
  fetchMaxBytes: number;
  /** URLs `web_fetch` refuses, also as a redirect target (`urlKey` → why); set per call, never configured. */
  fetchDeniedUrls?: ReadonlyMap<string, string>;
  /** Largest content `fs_write` accepts, in bytes; default FS_WRITE_MAX_BYTES. */
  fsWriteMaxBytes?: number;
  /** SearXNG-compatible JSON endpoint `web_search` calls; the tool refuses when absent. */
  searchUrl?: string;
  /** The activity's cancellation signal: aborts a waiting tool when the activity is cancelled or times out. */
  signal?: AbortSignal;
}

export type ToolImplementation = (args: Record<string, unknown>, options: ToolOptions) => Promise<Observation>;
