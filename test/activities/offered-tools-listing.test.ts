import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runToolCall } from '../../src/activities/tools';
import { confinementUnavailable } from '../../src/activities/tools/confined';
import { ToolRegistry } from '../../src/activities/tools/registry';
import type { ToolOptions } from '../../src/activities/tools/types';

let temporary: string;
let options: ToolOptions;
const saved = process.env.SCRATCHPAD_BWRAP_PATH;

beforeEach(async () => {
  temporary = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-offered-')));
  const sandboxRoot = path.join(temporary, 'sandbox');
  await fs.mkdir(sandboxRoot);
  options = {
    sandboxRoot,
    shellAllow: ['echo', 'ls'],
    shellTimeoutMs: 5000,
    fetchAllowHosts: ['127.0.0.1'],
    fetchMaxBytes: 1024,
    searchUrl: 'http://127.0.0.1:9/search',
  };
});

afterEach(async () => {
  if (saved === undefined) delete process.env.SCRATCHPAD_BWRAP_PATH;
  else process.env.SCRATCHPAD_BWRAP_PATH = saved;
  await fs.rm(temporary, { recursive: true, force: true });
});

async function names(registry: ToolRegistry, toolOptions: ToolOptions): Promise<string[]> {
  return (await registry.catalogue(toolOptions)).tools.map((entry) => entry.name);
}

describe("the worker's catalogue against this machine's sandbox", () => {
  it('lists shell exactly when a shell call could run here, with the same reason the tool would give', async () => {
    const why = await confinementUnavailable();
    const listing = await new ToolRegistry().catalogue(options);
    const call = await runToolCall({ cycleId: 'c', step: 1, name: 'shell', args: { command: 'echo hi' } }, options);
    if (why === undefined) {
      expect(listing.tools.map((entry) => entry.name)).toContain('shell');
      expect(listing.failures).toEqual([]);
      expect(call).toMatchObject({ ok: true, result: { stdout: 'hi\n' } });
    } else {
      expect(listing.tools.map((entry) => entry.name)).not.toContain('shell');
      expect(listing.failures).toEqual([expect.stringContaining(why)]);
      expect(call).toMatchObject({ ok: false, error: expect.stringContaining(why) });
    }
  });

  it('leaves shell out when bubblewrap is not found (SCRATCHPAD_BWRAP_PATH), saying how to install it', async () => {
    process.env.SCRATCHPAD_BWRAP_PATH = path.join(temporary, 'no-bwrap');
    const listing = await new ToolRegistry().catalogue(options);
    expect(listing.tools.map((entry) => entry.name)).toEqual([
      'echo',
      'fs_read',
      'fs_write',
      'web_fetch',
      'web_search',
    ]);
    expect(listing.failures).toEqual([
      'shell not offered: it runs only inside a bubblewrap sandbox, and bubblewrap was not found at ' +
        `SCRATCHPAD_BWRAP_PATH=${temporary}/no-bwrap; install it (Debian/Ubuntu: apt-get install bubblewrap) and ` +
        'point SCRATCHPAD_BWRAP_PATH at bwrap, or unset it. An operator who accepts a weaker guard (arguments ' +
        'checked, no OS sandbox) may set SCRATCHPAD_SHELL_UNCONFINED=true instead',
    ]);
    // The operator's opt-in to the argument guard brings it back, and it runs.
    const unconfined = { ...options, shellUnconfined: true };
    expect(await names(new ToolRegistry(), unconfined)).toContain('shell');
    const call = await runToolCall({ cycleId: 'c', step: 1, name: 'shell', args: { command: 'ls' } }, unconfined);
    expect(call).toMatchObject({ ok: true });
  });

  it('lists web_fetch with a fetch allow-list and web_search with an endpoint; not without', async () => {
    const registry = new ToolRegistry();
    const all = await names(registry, options);
    expect(all).toEqual(expect.arrayContaining(['web_fetch', 'web_search']));
    const { searchUrl: _, ...bare } = { ...options, fetchAllowHosts: [] };
    const listing = await registry.catalogue(bare);
    const others = all.filter((name) => name !== 'web_fetch' && name !== 'web_search');
    expect(listing.tools.map((entry) => entry.name)).toEqual(others);
    expect(listing.failures).toEqual([
      expect.stringMatching(/^web_fetch not offered: no hosts allowed \(set SCRATCHPAD_FETCH_ALLOW/),
      expect.stringMatching(/^web_search not offered: no search endpoint configured \(set SCRATCHPAD_SEARCH_URL/),
    ]);
    // What a call would have met instead: the tools' own refusals.
    const fetched = await runToolCall({ cycleId: 'c', step: 1, name: 'web_fetch', args: { url: 'http://a/' } }, bare);
    expect(fetched).toMatchObject({ ok: false, error: expect.stringMatching(/no host is allowed/) });
    const searched = await runToolCall({ cycleId: 'c', step: 2, name: 'web_search', args: { query: 'q' } }, bare);
    expect(searched).toEqual({ ok: false, error: 'web_search is not configured (set SCRATCHPAD_SEARCH_URL)' });
  });
});
