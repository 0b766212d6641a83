import type { z } from 'zod';
import type { Observation } from '../../core/observation';
import type { TOOL_ARGS } from '../../core/tools';
import { decodeUtf8 } from './decode-text';
import { errorMessage } from '../../common/error-message';
import type { ToolOptions } from './types';

/** The whole fetch, redirects and body included, is aborted after this. */
export const WEB_FETCH_TIMEOUT_MS = 10_000;
/** Redirects followed (each checked against the allow-list) before giving up. */
export const WEB_FETCH_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** `web_fetch`: GET an http(s) URL on an allowed host, following allowed redirects, the body capped in size. */
export async function webFetch(args: z.infer<typeof TOOL_ARGS.web_fetch>, options: ToolOptions): Promise<Observation> {
  const maxBytes = Math.min(args.max_bytes ?? options.fetchMaxBytes, options.fetchMaxBytes);
  const timeout = AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const { response, url } = await fetchFollowingAllowedRedirects(parseAllowedUrl(args.url, options), options, signal);
    const body = await readCapped(response, maxBytes);
    const text = decodeUtf8(body.bytes, body.truncated);
    return {
      ok: response.status < 400,
      result: text ?? Buffer.from(body.bytes).toString('base64'),
      ...(response.status >= 400 && { error: `HTTP ${response.status} ${response.statusText}`.trim() }),
      url: url.href,
      status: response.status,
      content_type: response.headers.get('content-type') ?? '',
      bytes: body.bytes.length,
      truncated: body.truncated,
      encoding: text === undefined ? 'base64' : 'utf-8',
    };
  } catch (error) {
    if (timeout.aborted) throw new Error(`timed out after ${WEB_FETCH_TIMEOUT_MS / 1000} s fetching ${args.url}`);
    // undici reports every network failure as "fetch failed"; the cause says which.
    const cause = (error as { cause?: unknown }).cause;
    if (cause === undefined) throw error;
    throw new Error(`${errorMessage(error)}: ${errorMessage(cause)}`);
  }
}

/** True when `hostname` matches an allow-list entry: exact, `*`, or `*.example.com` for subdomains. */
export function isHostAllowed(hostname: string, allowHosts: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return allowHosts.some((entry) => {
    const allowed = entry.toLowerCase();
    return allowed === '*' || allowed === host || (allowed.startsWith('*.') && host.endsWith(allowed.slice(1)));
  });
}

function parseAllowedUrl(raw: string, options: ToolOptions): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`only http and https URLs are allowed: ${raw}`);
  // URL keeps IPv6 hosts in brackets; allow-lists name them without.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isHostAllowed(hostname, options.fetchAllowHosts)) {
    throw new Error(`host "${hostname}" is not allowed (allowed: ${options.fetchAllowHosts.join(', ')})`);
  }
  return url;
}

// Redirects are followed by hand so that every hop's host is checked against the allow-list.
async function fetchFollowingAllowedRedirects(
  url: URL,
  options: ToolOptions,
  signal: AbortSignal,
): Promise<{ response: Response; url: URL }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, { redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      return { response, url: current };
    }
    await response.body?.cancel();
    if (hop >= WEB_FETCH_MAX_REDIRECTS) throw new Error(`too many redirects (more than ${WEB_FETCH_MAX_REDIRECTS})`);
    try {
      current = parseAllowedUrl(new URL(location, current).href, options);
    } catch (error) {
      throw new Error(`refused redirect from ${current.href} to ${location}: ${errorMessage(error)}`);
    }
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const keep = Math.min(value.length, maxBytes - total);
    chunks.push(value.subarray(0, keep));
    total += keep;
    if (keep < value.length) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  return { bytes: Buffer.concat(chunks), truncated };
}
