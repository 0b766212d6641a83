import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What one console process accepts: its token, the CSRF token derived from it, and the hosts it answers to. */
export interface ConsoleAuth {
  token: string;
  csrf: string;
  cookie: string;
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A new random token: the printed URL carries it once, then a cookie. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function consoleAuth(token: string, host: string, port: number): ConsoleAuth {
  const names = LOOPBACK.has(host) ? [...LOOPBACK] : [host, ...LOOPBACK];
  const hosts = new Set(names.map((name) => hostPort(name, port)));
  return {
    token,
    csrf: createHmac('sha256', token).update('csrf').digest('base64url'),
    // One cookie per port, so two consoles on one machine do not sign each other out.
    cookie: `scratchpad_console_${port}`,
    hosts,
    origins: new Set([...hosts].map((entry) => `http://${entry}`)),
  };
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** What to do with a request before any route sees it. */
export type Gate =
  | { kind: 'pass' }
  | { kind: 'refuse'; status: number; message: string }
  | { kind: 'sign-in'; location: string; cookie: string };

/**
 * The checks every request passes: a `Host` this console answers to (a page on another site cannot reach it by
 * rebinding a name to loopback), then the token, from the URL once (it becomes a cookie) or from the cookie.
 */
export function gate(auth: ConsoleAuth, request: IncomingMessage, url: URL): Gate {
  if (!auth.hosts.has(request.headers.host ?? '')) {
    return { kind: 'refuse', status: 421, message: `this console does not answer for host "${request.headers.host}"` };
  }
  const offered = url.searchParams.get('token');
  if (offered !== null) {
    if (!same(offered, auth.token)) return { kind: 'refuse', status: 403, message: 'wrong token' };
    url.searchParams.delete('token');
    const location = `${url.pathname}${url.search}`;
    const cookie = `${auth.cookie}=${auth.token}; HttpOnly; SameSite=Strict; Path=/`;
    return { kind: 'sign-in', location, cookie };
  }
  const held = cookieValue(request, auth.cookie);
  if (held === undefined || !same(held, auth.token)) {
    return { kind: 'refuse', status: 401, message: 'open the URL `scratchpad console` printed: it carries the token' };
  }
  return { kind: 'pass' };
}

/**
 * Why a state-changing request is refused, if it is: it must come from this console's own pages (the `Origin` and
 * `Sec-Fetch-Site` a browser sends) and carry the CSRF token its forms hold.
 */
export function csrfRefusal(auth: ConsoleAuth, request: IncomingMessage, form: URLSearchParams): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !auth.origins.has(origin)) return `cross-site request from ${origin} refused`;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `cross-site request (${site}) refused`;
  const token = form.get('csrf');
  if (token === null || !same(token, auth.csrf)) return 'the form lacks this console’s CSRF token: reload the page';
  return undefined;
}
