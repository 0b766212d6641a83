import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { devServerFiles, ensureDevServer, isServerAnswering, stopDevServer } from '../../src/dev-server/dev-server';
import { freePort, isPortFree } from '../../src/dev-server/free-port';

async function portWithFreeUiPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await isPortFree(port + 1000)) return port;
  }
}

describe('ensureDevServer', () => {
  let home: string;
  const log = () => undefined;

  beforeAll(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'ensure-dev-server-'));
  });
  afterAll(async () => {
    await stopDevServer(home);
    await fs.rm(home, { recursive: true, force: true });
  });

  test('starts a detached server once, reuses it, and stopDevServer stops it', async () => {
    const port = await portWithFreeUiPort();
    const config = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_NAMESPACE: 'default', home };

    const first = await ensureDevServer(config, { log });
    expect(first).toEqual({
      address: config.TEMPORAL_ADDRESS,
      uiUrl: `http://127.0.0.1:${port + 1000}`,
      started: true,
    });
    await expect(fs.readFile(devServerFiles(home).pidFile, 'utf8')).resolves.toMatch(/^\d+\n$/);

    const second = await ensureDevServer(config, { log });
    expect(second).toEqual({ ...first, started: false });

    expect(await stopDevServer(home)).toBe(true);
    expect(await isServerAnswering(config.TEMPORAL_ADDRESS)).toBe(false);
    expect(await stopDevServer(home)).toBe(false);
  });
});
