import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** Serves `pages` on a free loopback port until `close`; `/search` answers with the pages whose path a word names. */
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
