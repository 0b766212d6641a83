import type { z } from 'zod';
import type { Observation } from '../../core/observation';
import type { TOOL_ARGS } from '../../core/tools';
import type { ToolOptions } from './types';

/** The search call, body included, is aborted after this. */
export const WEB_SEARCH_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const SNIPPET_CHARS = 300;

interface SearxResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
}

/**
 * `web_search`: a SearXNG-compatible JSON endpoint (`GET <url>?q=…&format=json` answering `{results: [{url, title,
 * content}]}`). The endpoint is the operator's; its results are untrusted, so only http(s) URLs pass and every field
 * is cut.
 */
export async function webSearch(
  args: z.infer<typeof TOOL_ARGS.web_search>,
  options: ToolOptions,
): Promise<Observation> {
  if (!options.searchUrl) return { ok: false, error: 'web_search is not configured (set SCRATCHPAD_SEARCH_URL)' };
  const url = new URL(options.searchUrl);
  url.searchParams.set('q', args.query);
  url.searchParams.set('format', 'json');
  const response = await fetch(url, { signal: AbortSignal.timeout(WEB_SEARCH_TIMEOUT_MS), redirect: 'error' });
  const text = await response.text();
  if (!response.ok) return { ok: false, error: `search endpoint answered HTTP ${response.status}` };
  if (text.length > MAX_RESPONSE_BYTES) return { ok: false, error: 'search response over 1 MB' };
  let parsed: { results?: unknown };
  try {
    parsed = JSON.parse(text) as { results?: unknown };
  } catch {
    return { ok: false, error: 'search endpoint did not answer JSON' };
  }
  const raw = Array.isArray(parsed.results) ? (parsed.results as SearxResult[]) : [];
  const results = raw
    .filter((item) => typeof item.url === 'string' && /^https?:\/\//.test(item.url) && item.url.length <= 2048)
    .slice(0, args.max_results ?? 5)
    .map((item) => ({
      url: item.url as string,
      title: typeof item.title === 'string' ? item.title.slice(0, 200) : '',
      snippet: typeof item.content === 'string' ? item.content.slice(0, SNIPPET_CHARS) : '',
    }));
  return { ok: true, result: results, query: args.query };
}
