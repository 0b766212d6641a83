import * as net from 'node:net';
import { Connection, type ConnectionOptions } from '@temporalio/client';

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) };
}

/** Whether a TCP connection to `address` (host:port) opens within `timeoutMs`. */
export function isPortOpen(address: string, timeoutMs: number): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    const finish = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

/** A server's address, or the address with how to reach it (TLS, API key) as configuration gives it. */
type Target = string | (ConnectionOptions & { address: string });

async function withConnection(target: Target, timeoutMs: number, use: (connection: Connection) => Promise<unknown>) {
  const options = typeof target === 'string' ? { address: target } : target;
  // A plain TCP probe first: a refused port fails at once, where the gRPC connect would wait out its deadline.
  if (!(await isPortOpen(options.address, timeoutMs))) return false;
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ ...options, connectTimeout: timeoutMs });
    await use(connection);
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** Whether a Temporal frontend answers gRPC at `target` (host:port, or with its TLS settings) within `timeoutMs`. */
export function isServerAnswering(target: Target, timeoutMs = 1000): Promise<boolean> {
  // A call the server must answer: connecting alone succeeds against any HTTP/2 endpoint (a proxy, another service).
  return withConnection(target, timeoutMs, (connection) => connection.workflowService.getClusterInfo({}));
}

/** Whether the server at `address` answers and knows `namespace`. */
export function isNamespaceReady(address: string, namespace: string, timeoutMs = 1000): Promise<boolean> {
  return withConnection(address, timeoutMs, (connection) =>
    connection.workflowService.describeNamespace({ namespace }),
  );
}
