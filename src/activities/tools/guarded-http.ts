import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { errorMessage } from '../../common/error-message';
import {
  bareHostname,
  checkUrl,
  type NetworkPolicy,
  portOf,
  refusedAddress,
  withoutCredentials,
} from './address-policy';

/** Redirects followed (each one checked like the first URL) before giving up. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
}

export interface GuardedRequest {
  maxBytes: number;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * GET `raw` under `policy`: scheme, host and port checked on the URL and on every redirect; each host name's
 * addresses checked after DNS resolution and the socket connected to the checked address itself, so a second
 * resolution (DNS rebinding) cannot swap in another.
 */
export async function guardedGet(
  raw: string,
  policy: NetworkPolicy,
  request: GuardedRequest,
): Promise<GuardedResponse> {
  let url = checkUrl(raw, policy);
  for (let hop = 0; ; hop++) {
    const response = await getOnce(url, policy, request);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || location === undefined) {
      const { body, truncated } = await readCapped(response, request.maxBytes);
      const status = response.statusCode ?? 0;
      return { url, status, statusText: response.statusMessage ?? '', headers: response.headers, body, truncated };
    }
    response.destroy();
    if (hop >= MAX_REDIRECTS) throw new Error(`too many redirects (more than ${MAX_REDIRECTS})`);
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      throw new Error(`refused redirect from ${url.href}: its Location is not a valid URL`);
    }
    try {
      url = checkUrl(target.href, policy);
    } catch (error) {
      throw new Error(`refused redirect from ${url.href} to ${withoutCredentials(target)}: ${errorMessage(error)}`);
    }
  }
}

function getOnce(url: URL, policy: NetworkPolicy, request: GuardedRequest): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      {
        hostname: bareHostname(url),
        port: portOf(url),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'user-agent': 'durable-scratchpad', ...request.headers },
        lookup: checkedLookup(policy),
        agent: false,
        signal: request.signal,
      },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function checkedLookup(policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      // Refused if any address is: which one a connection would use is not ours to choose.
      for (const { address } of addresses) {
        const refused = refusedAddress(address, policy);
        if (refused) return callback(new Error(`${hostname} resolves to ${refused}`), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function readCapped(response: http.IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    response.on('data', (chunk: Buffer) => {
      const keep = Math.min(chunk.length, maxBytes - total);
      chunks.push(chunk.subarray(0, keep));
      total += keep;
      if (keep < chunk.length) {
        response.destroy();
        resolve({ body: Buffer.concat(chunks), truncated: true });
      }
    });
    response.on('end', () => resolve({ body: Buffer.concat(chunks), truncated: false }));
    response.on('error', reject);
  });
}
