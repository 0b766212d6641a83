/** Keeps the first `maxBytes` of a stream and counts the rest, which is read and dropped so the writer never blocks. */
export function capture(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
): { text: () => string; dropped: () => number } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  stream.on('data', (chunk: Buffer) => {
    const keep = Math.max(0, Math.min(maxBytes - kept, chunk.length));
    if (keep > 0) chunks.push(chunk.subarray(0, keep));
    kept += keep;
    dropped += chunk.length - keep;
  });
  return { text: () => Buffer.concat(chunks).toString('utf-8'), dropped: () => dropped };
}

/** SIGKILL to a detached child's whole process group. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
