import type { z } from 'zod';
import type { Observation } from '../../core/tools/observation';
import type { TOOL_ARGS } from '../../core/tools/catalogue';
import type { NetworkPolicy } from './address-policy';
import { decodeUtf8 } from './decode-text';
import { errorMessage } from '../../common/error-message';
import { guardedGet } from './guarded-http';
import type { ToolOptions } from './types';

/** The whole fetch, redirects and body included, is aborted after this. */
export const WEB_FETCH_TIMEOUT_MS = 10_000;

/** The network policy of the tool options. */
export function fetchPolicy(options: ToolOptions): NetworkPolicy {
  return {
    allowHosts: options.fetchAllowHosts,
    allowAddresses: options.fetchAllowAddresses,
    allowPorts: options.fetchAllowPorts,
    ...(options.fetchDeniedUrls && { deniedUrls: options.fetchDeniedUrls }),
  };
}

/** `web_fetch`: GET an http(s) URL on an allowed host and public address, the body capped in size. */
export async function webFetch(
  args: z.infer<ReturnType<typeof TOOL_ARGS.web_fetch>>,
  options: ToolOptions,
): Promise<Observation> {
  const maxBytes = Math.min(args.max_bytes ?? options.fetchMaxBytes, options.fetchMaxBytes);
  const timeout = AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await guardedGet(args.url, fetchPolicy(options), { maxBytes, signal });
    const text = decodeUtf8(response.body, response.truncated);
    const failed = response.status >= 400;
    return {
      ok: !failed,
      result: text ?? response.body.toString('base64'),
      ...(failed && { error: `HTTP ${response.status} ${response.statusText}`.trim() }),
      url: response.url.href,
      status: response.status,
      content_type: response.headers['content-type'] ?? '',
      bytes: response.body.length,
      truncated: response.truncated,
      encoding: text === undefined ? 'base64' : 'utf-8',
    };
  } catch (error) {
    if (timeout.aborted) throw new Error(`timed out after ${WEB_FETCH_TIMEOUT_MS / 1000} s fetching ${args.url}`);
    throw new Error(errorMessage(error));
  }
}
