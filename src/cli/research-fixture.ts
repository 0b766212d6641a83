import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptEntry } from '../activities/model/scripted';
import { planPrompt } from '../core/research/plan';

/** A small web on loopback for tests and the offline demo: a SearXNG-style search endpoint and pages. */
export interface FixtureWeb {
  base: string;
  searchUrl: string;
  /** Every path requested, in order (search included, with its query). */
  requests: string[];
  /** Tool options that let `web_fetch` and `web_search` reach this web, and nothing else on loopback. */
  allowance: { fetchAllowHosts: string[]; fetchAllowAddresses: string[]; fetchAllowPorts: number[] };
  close(): Promise<void>;
}

// Pages are padded past the observation offload threshold, so each fetch is a large stored observation.
const PADDING = `\n${'<p>Archive of quarterly notes, press releases and unrelated filler text.</p>\n'.repeat(80)}`;

/** path → body; `/dead` answers 410 and `/old` lacks the values the scripted demo worker claims. */
export function fixturePages(companies: Record<string, Record<string, string>>): Record<string, string> {
  const pages: Record<string, string> = {
    '/old': `<html><body><h1>Old directory</h1><p>Figures withheld.</p>${PADDING}</body></html>`,
  };
  for (const [name, fields] of Object.entries(companies)) {
    const rows = Object.entries(fields)
      .map(([field, value]) => `<tr><td>${field}</td><td>${value}</td></tr>`)
      .join('');
    pages[`/${name.toLowerCase()}`] = `<html><body><h1>${name}</h1><table>${rows}</table>${PADDING}</body></html>`;
  }
  return pages;
}

export async function serveFixtureWeb(pages: Record<string, string>): Promise<FixtureWeb> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    requests.push(url.pathname === '/search' ? `${url.pathname}?q=${url.searchParams.get('q') ?? ''}` : url.pathname);
    if (url.pathname === '/search') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const results = Object.keys(pages)
        .filter((path) => q.split(/\s+/).some((word) => word.length > 2 && path.includes(word)))
        .map((path) => ({ url: `${base}${path}`, title: path.slice(1), content: `Page about ${path.slice(1)}` }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      return;
    }
    const body = pages[url.pathname];
    if (url.pathname === '/dead' || body === undefined) {
      response.writeHead(410, { 'content-type': 'text/plain' }).end('gone');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    searchUrl: `${base}/search`,
    requests,
    allowance: { fetchAllowHosts: ['127.0.0.1'], fetchAllowAddresses: ['127.0.0.1/32'], fetchAllowPorts: [port] },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Route key of a worker conversation: the first line of its brief, in its investigation's workspace. */
export function factRoute(entity: string, field: string, attempt = 1): string {
  return `Fact: ${entity} / ${field} (attempt ${attempt})`;
}

/** A worker script that searches, fetches `path` and claims `value` from that fetch (step 2). */
export function verifyScript(base: string, entity: string, path: string, value: string, delayMs = 0): ScriptEntry[] {
  return [
    { tool: 'web_search', args: { query: `${entity} ${path.slice(1)}` }, delayMs },
    { tool: 'web_fetch', args: { url: `${base}${path}` } },
    { tool: 'board_write', args: { status: 'VERIFIED', value, source_url: `${base}${path}`, step: 2 } },
  ];
}

/** Route key of the supervisor's planning turn for `question` (the first line of its prompt). */
export function planRoute(question: string): string {
  return planPrompt({ question }).split('\n')[0] as string;
}

/** The demo supervisor's plan: the demo companies × revenue and employees. */
export const DEMO_PLAN: ScriptEntry[] = [
  {
    tool: 'plan_research',
    args: {
      goal: 'Find the revenue and employee count of Acme and Globex',
      entities: ['Acme', 'Globex'],
      fields: ['revenue', 'employees'],
    },
  },
];

/** The companies the demo web knows. */
export const DEMO_COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
};

/**
 * Scripted workers for Acme and Globex × revenue and employees: two verify at once; one meets a dead URL (FAILED_URL,
 * then a re-search that tries the tombstoned URL again and is refused); one claims a value its page lacks (recorded
 * UNVERIFIED, re-delegated).
 */
export function demoRoutes(b: string): Record<string, ScriptEntry[]> {
  return {
    [factRoute('Acme', 'revenue')]: verifyScript(b, 'Acme', '/acme', '1234567'),
    [factRoute('Acme', 'employees')]: verifyScript(b, 'Acme', '/acme', '5000'),
    [factRoute('Globex', 'revenue')]: [
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'board_write', args: { status: 'FAILED_URL', url: `${b}/dead`, reason: 'HTTP 410' } },
    ],
    [factRoute('Globex', 'revenue', 2)]: [
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'web_fetch', args: { url: `${b}/globex` } },
      { tool: 'board_write', args: { status: 'VERIFIED', value: '890,000', source_url: `${b}/globex`, step: 2 } },
    ],
    [factRoute('Globex', 'employees')]: [
      { tool: 'web_fetch', args: { url: `${b}/old` } },
      { tool: 'board_write', args: { status: 'VERIFIED', value: '1,200', source_url: `${b}/old`, step: 1 } },
    ],
    [factRoute('Globex', 'employees', 2)]: verifyScript(b, 'Globex', '/globex', '1 200'),
  };
}
