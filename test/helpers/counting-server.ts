import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server that should never be asked: it counts requests and answers each with a page worth stealing. */
export interface CountingServer {
  url: string;
  readonly requests: number;
  close(): Promise<void>;
}

/** The page it serves, with a marker no failure may quote. */
export const SECRET_PAGE = `<html>\n<title>Internal admin</title>\n${'padding '.repeat(30)}\nSECRET-PAGE-TOKEN\n</html>`;

export async function startCountingServer(): Promise<CountingServer> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    request.resume();
    response.writeHead(404, { 'content-type': 'text/html' }).end(SECRET_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
