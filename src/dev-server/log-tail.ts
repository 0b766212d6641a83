import * as fs from 'node:fs';

/** The last `maxBytes` of `file` as text, '' when it cannot be read: a log's end without reading a long log whole. */
export function readTail(file: string, maxBytes: number): string {
  try {
    const size = fs.statSync(file).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const descriptor = fs.openSync(file, 'r');
    try {
      fs.readSync(descriptor, buffer, 0, length, size - length);
    } finally {
      fs.closeSync(descriptor);
    }
    return buffer.toString('utf8');
  } catch {
    return '';
  }
}

/** The last `lines` non-empty lines of `file` (read from its last 64 KiB). */
export function lastLines(file: string, lines: number): string[] {
  return readTail(file, 64 * 1024)
    .split('\n')
    .filter(Boolean)
    .slice(-lines);
}
