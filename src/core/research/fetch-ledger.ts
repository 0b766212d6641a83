import type { Action } from '../cycle/parse';
import type { Observation } from '../tools/observation';
import { BOARD_LIMITS } from './limits';
import { urlKey } from './url-key';

/** Characters of what failed kept for a FAILED_URL entry. */
const FAILURE_CHARS = 300;

function fieldOf(observation: Observation, key: string): unknown {
  if (key in observation) return observation[key];
  const metadata = observation.metadata;
  return metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>)[key] : undefined;
}

/**
 * What one investigation saw of the web (design.md, Verified means checked): which of its own `web_fetch` calls
 * failed and how, and the query it last searched. A FAILED_URL must cite a failure recorded here; the query rides the
 * entry, so the supervisor's new search after the tombstone starts from it. Fed from the cycle's observations, so a
 * replay sees the same.
 */
export class FetchLedger {
  private readonly failures = new Map<string, string>();
  /** The query of the investigation's last `web_search`. */
  lastQuery?: string;

  observe(action: Action, observation: Observation): void {
    if (action.tool === 'web_search' && typeof action.args.query === 'string' && action.args.query.trim() !== '') {
      this.lastQuery = [...action.args.query.trim()].slice(0, BOARD_LIMITS.query).join('');
    }
    if (action.tool !== 'web_fetch') return;
    const status = fieldOf(observation, 'status');
    const failedStatus = typeof status === 'number' && status >= 400;
    if (observation.ok !== false && !failedStatus) return;
    const error = typeof observation.error === 'string' ? observation.error.replace(/\s+/g, ' ').trim() : '';
    const what = (error || (failedStatus ? `HTTP ${status}` : 'the fetch failed')).slice(0, FAILURE_CHARS);
    const fetched = fieldOf(observation, 'url');
    // The URL as asked and as finally fetched (after redirects): either is the URL that failed.
    for (const url of [action.args.url, fetched]) if (typeof url === 'string') this.failures.set(urlKey(url), what);
  }

  /** What failed when this investigation fetched `url`; undefined when it never saw that fetch fail. */
  failureOf(url: string): string | undefined {
    return this.failures.get(urlKey(url));
  }
}
