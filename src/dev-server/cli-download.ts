import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const PLATFORMS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const ARCHES: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/** The official download address of the latest Temporal CLI for this platform, if it publishes one. */
export function officialDownloadUrl(platform = process.platform, arch = process.arch): string | undefined {
  const os = PLATFORMS[platform];
  const cpu = ARCHES[arch];
  if (!os || !cpu) return undefined;
  return `https://temporal.download/cli/archive/latest?platform=${os}&arch=${cpu}`;
}

/** A fetch failure with its low-level cause (`ENOTFOUND`, `ECONNREFUSED`, timeout) spelled out. */
export function describeFetchError(error: unknown): string {
  const { message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  const detail = cause?.code ?? cause?.message;
  return detail ? `${message} (${detail})` : message;
}

/** Downloads the CLI archive from `url` and extracts its `temporal` binary to `binaryPath` with the system `tar`. */
export async function downloadTemporalCli(url: string, binaryPath: string, connectTimeoutMs = 5000): Promise<void> {
  const directory = path.dirname(binaryPath);
  await fs.mkdir(directory, { recursive: true });
  const staging = await fs.mkdtemp(path.join(directory, '.download-'));
  const controller = new AbortController();
  // Abort fast when the host is unreachable, but give the body time once the server has answered.
  let timer = setTimeout(
    () => controller.abort(new Error(`no answer within ${connectTimeoutMs} ms`)),
    connectTimeoutMs,
  );
  try {
    const response = await fetch(url, { signal: controller.signal });
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error('download took over 10 minutes')), 10 * 60_000);
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} from ${url}`);
    const archive = path.join(staging, 'temporal-archive');
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      createWriteStream(archive),
    );
    await promisify(execFile)('tar', ['-xf', archive, '-C', staging], { timeout: 120_000 });
    const name = path.basename(binaryPath);
    await fs.chmod(path.join(staging, name), 0o755);
    await fs.rename(path.join(staging, name), binaryPath);
  } finally {
    clearTimeout(timer);
    await fs.rm(staging, { recursive: true, force: true });
  }
}
