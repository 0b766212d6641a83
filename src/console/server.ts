import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { type Html, html, layout } from './html';
import { type ConsoleAuth, consoleAuth, csrfRefusal, gate, newToken } from './security';
import { BadRequest, NotFound } from './errors';
import { Locked } from './encrypted';
import { agentsPage } from './pages/agents';
import { agentPage } from './pages/agent';
import { cyclePage } from './pages/cycle';
import { approvalsPage } from './pages/approvals';
import { researchPage, stagedPage } from './pages/runs';
import { agentAction, decideAction } from './actions';
import { streamTurnPage } from './pages/turn';
import { archivePage } from './pages/archive';
import type { ObservationStore } from '../activities/observations/entry';

export interface ConsoleOptions {
  client: Client;
  host?: string;
  port?: number;
  /** A fixed token (tests); a random one otherwise. */
  token?: string;
  /** The store the workers archive memory to, for the archive pointers' links. */
  observations?: ObservationStore;
  /** A workflow's page in the Temporal Web UI, for the links on a cycle's page. */
  webUi?: (workflowId: string) => string | undefined;
}

export interface RunningConsole {
  /** The URL to open: it carries the token once, which the console then keeps in a cookie. */
  url: string;
  close(): Promise<void>;
}

/** Most bytes a posted form may carry: a message or a section's content, with room to spare. */
const MAX_FORM_BYTES = 256 * 1024;

type Page = { title: string; body: Html };

const HEADINGS: Record<number, string> = { 400: 'Not done', 403: 'Cannot show this', 404: 'Not found' };

const SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // Nothing is loaded from elsewhere, no script runs, and no other site may frame the console.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // Same-origin, so a form post carries its Origin (no-referrer makes a browser send `Origin: null`).
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        reject(new BadRequest(`the form passes ${MAX_FORM_BYTES} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}

/** A page by path; undefined when no page has that path. */
function route(options: ConsoleOptions, auth: ConsoleAuth, url: URL): Promise<Page> | undefined {
  const { client } = options;
  const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const [first, second, third, fourth] = parts;
  if (url.pathname === '/') return agentsPage(client, url);
  if (first === 'approvals' && parts.length === 1) return approvalsPage(client, url, auth.csrf);
  if (first === 'agents' && second && parts.length === 2) return agentPage(client, second, url, auth.csrf);
  if (first === 'agents' && second && third === 'cycles' && /^\d+$/.test(fourth ?? '') && parts.length === 4) {
    return cyclePage(client, second, Number(fourth), options.webUi ?? (() => undefined));
  }
  if (first === 'agents' && second && third === 'archive' && fourth && parts.length === 4) {
    return archivePage(options.observations, second, fourth);
  }
  if (first === 'research' && second && parts.length === 2) return researchPage(client, second);
  if (first === 'research' && parts.length === 1) return agentsPage(client, url);
  if (first === 'staged' && second && /^\d+$/.test(third ?? '') && parts.length === 3) {
    return stagedPage(client, second, Number(third));
  }
  return undefined;
}

/** A posted action by path: where to go after it; undefined when no action has that path. */
function action(client: Client, url: URL, form: URLSearchParams): Promise<string> | undefined {
  const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const [first, second, third] = parts;
  if (first === 'approvals' && second === 'decide' && parts.length === 2) return decideAction(client, form);
  if (first === 'agents' && second && third && parts.length === 3) return agentAction(client, second, third, form);
  return undefined;
}

function send(response: http.ServerResponse, status: number, title: string, body: Html): void {
  response.writeHead(status, SECURITY_HEADERS).end(layout(title, body));
}

async function handle(
  options: ConsoleOptions,
  auth: ConsoleAuth,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://console.invalid');
  const passed = gate(auth, request, url);
  if (passed.kind === 'refuse')
    return send(
      response,
      passed.status,
      'Refused',
      html`<h1>Refused</h1>
        <p>${passed.message}</p>`,
    );
  if (passed.kind === 'sign-in') {
    response
      .writeHead(303, { location: passed.location, 'set-cookie': passed.cookie, 'cache-control': 'no-store' })
      .end();
    return;
  }
  try {
    if (request.method === 'POST') {
      const form = await readForm(request);
      const refusal = csrfRefusal(auth, request, form);
      if (refusal)
        return send(
          response,
          403,
          'Refused',
          html`<h1>Refused</h1>
            <p>${refusal}</p>`,
        );
      const next = action(options.client, url, form);
      if (!next) throw new NotFound(`no action at ${url.pathname}`);
      response.writeHead(303, { location: await next, 'cache-control': 'no-store' }).end();
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') throw new BadRequest(`${request.method} is not served`);
    const live = /^\/agents\/([^/]+)\/cycles\/(\d+)\/live$/.exec(url.pathname);
    if (live)
      return await streamTurnPage(
        options.client,
        decodeURIComponent(live[1]!),
        Number(live[2]),
        response,
        SECURITY_HEADERS,
      );
    const page = route(options, auth, url);
    if (!page) throw new NotFound(`no page at ${url.pathname}`);
    const { title, body } = await page;
    send(response, 200, title, body);
  } catch (error) {
    const status =
      error instanceof NotFound ? 404 : error instanceof BadRequest ? 400 : error instanceof Locked ? 403 : 500;
    const message = error instanceof Error ? error.message : String(error);
    send(
      response,
      status,
      'Error',
      html`<h1>${HEADINGS[status] ?? 'Something failed'}</h1>
        <p>${message}</p>`,
    );
  }
}

/** Serves the console until closed; loopback unless told otherwise. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const auth = consoleAuth(token, host, port);
  server.on('request', (request, response) => void handle(options, auth, request, response));
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/?token=${token}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
