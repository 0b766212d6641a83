import * as net from 'node:net';
import { urlKey } from '../../core/research/url-key';

/** Where a network tool may connect. */
export interface NetworkPolicy {
  /** Host names, `*.example.com`, or `*` for any; empty denies every host. */
  allowHosts: readonly string[];
  /** CIDR ranges of non-public addresses allowed anyway (e.g. 127.0.0.1/32 for a local service). */
  allowAddresses?: readonly string[];
  /** Default 80 and 443. */
  allowPorts?: readonly number[];
  /** URLs (by `urlKey`) refused whatever their host, with why: a research run's tombstones. */
  deniedUrls?: ReadonlyMap<string, string>;
}

export const DEFAULT_PORTS: readonly number[] = [80, 443];

// Addresses a model must not reach unless an operator allows them: the host itself, the LAN, cloud metadata.
const NON_PUBLIC: [string, number, string][] = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['100::', 64, 'discard'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

const RANGES = NON_PUBLIC.map(([address, prefix, kind]) => {
  const list = new net.BlockList();
  list.addSubnet(address, prefix, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  return { list, kind };
});

function family(address: string): 'ipv4' | 'ipv6' {
  return net.isIPv6(address) ? 'ipv6' : 'ipv4';
}

/** Why `address` may not be reached under `policy`, or undefined when it may. */
export function refusedAddress(address: string, policy: NetworkPolicy): string | undefined {
  const range = RANGES.find(({ list }) => list.check(address, family(address)));
  if (range === undefined) return undefined;
  if (allowedRanges(policy).check(address, family(address))) return undefined;
  return (
    `${address} is a ${range.kind} address, which is refused unless allowed ` +
    '(SCRATCHPAD_FETCH_ALLOW_PRIVATE, CIDR ranges)'
  );
}

function allowedRanges(policy: NetworkPolicy): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of policy.allowAddresses ?? []) {
    const [address, prefix] = cidr.split('/');
    if (address && net.isIP(address)) list.addSubnet(address, Number(prefix), family(address));
  }
  return list;
}

/** True when `hostname` matches an allow-list entry: exact, `*`, or `*.example.com` for subdomains. */
export function isHostAllowed(hostname: string, allowHosts: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return allowHosts.some((entry) => {
    const allowed = entry.toLowerCase();
    return allowed === '*' || allowed === host || (allowed.startsWith('*.') && host.endsWith(allowed.slice(1)));
  });
}

/** The URL if its scheme, host and port are allowed; else an error saying which is not and how to allow it. */
export function checkUrl(raw: string, policy: NetworkPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`only http and https URLs are allowed: ${raw}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error(`a URL may not carry a user name or password (${withoutCredentials(url)}): fetch it without them`);
  }
  const denied = policy.deniedUrls?.get(urlKey(url));
  if (denied !== undefined) throw new Error(`${url.href} ${denied}`);
  const hostname = bareHostname(url);
  if (policy.allowHosts.length === 0) {
    throw new Error('no host is allowed: an operator lists the hosts the agent may fetch in SCRATCHPAD_FETCH_ALLOW');
  }
  if (!isHostAllowed(hostname, policy.allowHosts)) {
    throw new Error(`host "${hostname}" is not allowed (allowed: ${policy.allowHosts.join(', ')})`);
  }
  const ports = policy.allowPorts ?? DEFAULT_PORTS;
  if (!ports.includes(portOf(url))) {
    throw new Error(`port ${portOf(url)} is not allowed (allowed: ${ports.join(', ')}; SCRATCHPAD_FETCH_PORTS)`);
  }
  if (net.isIP(hostname)) {
    const refused = refusedAddress(hostname, policy);
    if (refused) throw new Error(refused);
  }
  return url;
}

/** `url` with any user name and password masked, for messages: they must not reach the history. */
export function withoutCredentials(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const masked = new URL(url.href);
  masked.username = '***';
  masked.password = '';
  return masked.href;
}

/** URL keeps IPv6 hosts in brackets; allow-lists and sockets name them without. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
