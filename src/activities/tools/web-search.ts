import type { z } from 'zod';
import type { Observation } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';
import { errorMessage } from '../../common/error-message';
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
  args: z.infer<ReturnType<typeof TOOL_ARGS.web_search>>,
  options: ToolOptions,
): Promise<Observation> {
  if (!options.searchUrl) return { ok: false, error: 'web_search is not configured (set SCRATCHPAD_SEARCH_URL)' };
  const url = new URL(options.searchUrl);
  url.searchParams.set('q', args.query);
  url.searchParams.set('format', 'json');
  const timeout = AbortSignal.timeout(WEB_SEARCH_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let text: string | undefined;
  try {
    const response = await fetch(url, { signal, redirect: 'error' });
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, error: `search endpoint answered HTTP ${response.status}` };
    }
    text = await readCapped(response, MAX_RESPONSE_BYTES);
  } catch (error) {
    if (timeout.aborted)
      return { ok: false, error: `search endpoint did not answer within ${WEB_SEARCH_TIMEOUT_MS} ms` };
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why = cause?.code ?? cause?.message;
    return { ok: false, error: `search endpoint unreachable: ${errorMessage(error)}${why ? ` (${String(why)})` : ''}` };
  }
  if (text === undefined) return { ok: false, error: 'search response over 1 MB' };
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

/** The body as text, or undefined once it passes `maxBytes`: an endpoint that streams without end is cut off. */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
