import * as fs from 'node:fs';

/** The inode of this machine's IPv4 TCP socket bound to loopback port `localPort` (the client end of a connection). */
function socketInode(localPort: number): string | undefined {
  const port = localPort.toString(16).toUpperCase().padStart(4, '0');
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf-8').split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns[1] === `0100007F:${port}`) return columns[9];
  }
  return undefined;
}

/**
 * Which of `pids` holds the client end of a loopback connection whose client port is `remotePort` (what an HTTP
 * server sees as `request.socket.remotePort`): the process that sent the request. Linux only (/proc).
 */
export function socketOwner(remotePort: number, pids: readonly number[]): number | undefined {
  const inode = socketInode(remotePort);
  if (!inode || inode === '0') return undefined;
  const link = `socket:[${inode}]`;
  return pids.find((pid) => {
    try {
      const directory = `/proc/${pid}/fd`;
      return fs.readdirSync(directory).some((fd) => {
        try {
          return fs.readlinkSync(`${directory}/${fd}`) === link;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

/**
 * Whether no process holds the client end of that connection any more: it is gone from /proc/net/tcp, or listed with
 * no inode (orphaned, as when its process died after sending). A process waiting on the connection's answer holds it.
 */
export function clientEndReleased(remotePort: number): boolean {
  const inode = socketInode(remotePort);
  return inode === undefined || inode === '0';
}
