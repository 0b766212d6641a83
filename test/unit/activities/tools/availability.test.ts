import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { builtinTools, sandboxCheckOnce, unavailableBuiltins } from '../../../../src/activities/tools/availability';
import { defineTool } from '../../../../src/activities/tools/define-tool';
import { type McpSource, ToolRegistry } from '../../../../src/activities/tools/registry';
import type { ToolOptions } from '../../../../src/activities/tools/types';
import { selectTools } from '../../../../src/core/tools/select';

/** A worker whose built-ins can all run, as far as its options go. */
const everything: ToolOptions = {
  sandboxRoot: os.tmpdir(),
  shellAllow: ['ls', 'cat'],
  shellTimeoutMs: 1000,
  fetchAllowHosts: ['example.com'],
  fetchMaxBytes: 1024,
  searchUrl: 'http://localhost:8888/search',
};

const sandboxStarts = async (): Promise<string | undefined> => undefined;
const noBubblewrap = async (): Promise<string | undefined> => 'bubblewrap (bwrap) was not found on PATH; install it';

const FETCH_LINE =
  'web_fetch not offered: no hosts allowed (set SCRATCHPAD_FETCH_ALLOW, e.g. example.com,*.example.org, or * for ' +
  'any public host)';
const SEARCH_LINE =
  'web_search not offered: no search endpoint configured (set SCRATCHPAD_SEARCH_URL to a SearXNG-compatible JSON ' +
  'endpoint, e.g. http://localhost:8888/search)';

async function listed(options: ToolOptions, sandbox = sandboxStarts) {
  const { tools, failures } = await builtinTools(options, sandbox);
  return { names: tools.map((tool) => tool.name), failures };
}

describe('built-in tools a worker offers only where they can run', () => {
  it('offers every built-in when its options let each run, and says nothing', async () => {
    expect(await listed(everything)).toEqual({
      names: ['echo', 'shell', 'fs_read', 'fs_write', 'web_fetch', 'web_search'],
      failures: [],
    });
  });

  it('leaves web_fetch out without a fetch allow-list, and says what to set', async () => {
    expect(await listed({ ...everything, fetchAllowHosts: [] })).toEqual({
      names: ['echo', 'shell', 'fs_read', 'fs_write', 'web_search'],
      failures: [FETCH_LINE],
    });
    expect((await listed({ ...everything, fetchAllowHosts: ['*'] })).names).toContain('web_fetch');
  });

  it('leaves web_search out without a search endpoint, and says what to set', async () => {
    const { searchUrl: _, ...noSearch } = everything;
    expect(await listed(noSearch)).toEqual({
      names: ['echo', 'shell', 'fs_read', 'fs_write', 'web_fetch'],
      failures: [SEARCH_LINE],
    });
    expect((await listed({ ...everything, searchUrl: '' })).failures).toEqual([SEARCH_LINE]);
  });

  it("leaves shell out where its sandbox cannot start, passing on the check's reason and the way out", async () => {
    const { names, failures } = await listed(everything, noBubblewrap);
    expect(names).toEqual(['echo', 'fs_read', 'fs_write', 'web_fetch', 'web_search']);
    expect(failures).toEqual([
      'shell not offered: it runs only inside a bubblewrap sandbox, and bubblewrap (bwrap) was not found on PATH; ' +
        'install it. An operator who accepts a weaker guard (arguments checked, no OS sandbox) may set ' +
        'SCRATCHPAD_SHELL_UNCONFINED=true instead',
    ]);
  });

  it('offers shell without a sandbox when the operator accepts the argument guard, never asking for bubblewrap', async () => {
    const sandbox = jest.fn(noBubblewrap);
    expect((await listed({ ...everything, shellUnconfined: true }, sandbox)).names).toContain('shell');
    expect(sandbox).not.toHaveBeenCalled();
  });

  it('leaves shell out when its allow-list is empty, since every command would be refused, without probing', async () => {
    const sandbox = jest.fn(sandboxStarts);
    const unavailable = await unavailableBuiltins({ ...everything, shellAllow: [], shellUnconfined: true }, sandbox);
    expect(unavailable.get('shell')).toBe(
      'shell not offered: no programs allowed, so every command would be refused (set SCRATCHPAD_SHELL_ALLOW, ' +
        'e.g. ls,cat,grep)',
    );
    expect(sandbox).not.toHaveBeenCalled();
  });

  it('lists every built-in when asked without options, as before', async () => {
    const sandbox = jest.fn(noBubblewrap);
    expect(await builtinTools(undefined, sandbox)).toMatchObject({ failures: [] });
    expect((await builtinTools(undefined, sandbox)).tools).toHaveLength(6);
    expect(sandbox).not.toHaveBeenCalled();
  });
});

describe('the sandbox check', () => {
  it('is asked once, however many catalogues are listed at once or after', async () => {
    const check = jest.fn(noBubblewrap);
    const once = sandboxCheckOnce(check);
    const answers = await Promise.all([once(), once(), once()]);
    expect(await once()).toBe(answers[0]);
    expect(new Set(answers).size).toBe(1);
    expect(check).toHaveBeenCalledTimes(1);
  });

  it('turns a check that throws into a reason, so listing the tools never fails for it', async () => {
    const once = sandboxCheckOnce(() => Promise.reject(new Error('EACCES')));
    expect(await once()).toBe('the sandbox check failed: EACCES');
  });

  it('turns a check that hangs into a reason, so no listing waits on it for ever', async () => {
    const once = sandboxCheckOnce(() => new Promise(() => undefined), 20);
    expect(await once()).toBe('the sandbox check did not finish within 20 ms');
  });
});

describe("the worker's catalogue (ToolRegistry.catalogue), as listTools returns it to every cycle", () => {
  const saved = process.env.SCRATCHPAD_BWRAP_PATH;
  const missing = path.join(os.tmpdir(), `no-bwrap-${process.pid}`, 'bwrap');
  beforeEach(() => {
    process.env.SCRATCHPAD_BWRAP_PATH = missing;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.SCRATCHPAD_BWRAP_PATH;
    else process.env.SCRATCHPAD_BWRAP_PATH = saved;
  });

  const lookup = defineTool({ name: 'lookup', description: 'Look up.', input: z.object({}), run: () => 'ok' });
  const mcp: McpSource = {
    list: () => Promise.resolve({ tools: [], failures: [{ server: 'github', error: 'did not start' }] }),
    call: () => Promise.reject(new Error('no call expected')),
    close: () => Promise.resolve(),
  };

  it('leaves out the built-ins that cannot run, before the failures of other sources; the rest is unchanged', async () => {
    const registry = new ToolRegistry([lookup], mcp);
    const { searchUrl: _, ...options } = { ...everything, fetchAllowHosts: [] };
    const listing = await registry.catalogue(options);
    expect(listing.tools.map((entry) => `${entry.source}:${entry.name}`)).toEqual([
      'builtin:echo',
      'builtin:fs_read',
      'builtin:fs_write',
      'code:lookup',
    ]);
    expect(listing.failures).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shell not offered: it runs only inside a bubblewrap sandbox, and bubblewrap was not found at ` +
            `SCRATCHPAD_BWRAP_PATH=${missing}; install it .*SCRATCHPAD_SHELL_UNCONFINED=true instead$`,
        ),
      ),
      FETCH_LINE,
      SEARCH_LINE,
      'MCP server github: did not start',
    ]);
    // Asked without the worker's options (a registry outside a worker), every built-in, as before.
    expect((await registry.catalogue()).tools.map((entry) => entry.name)).toEqual([
      'echo',
      'shell',
      'fs_read',
      'fs_write',
      'web_fetch',
      'web_search',
      'lookup',
    ]);
  });

  it('describes what it lists: `scratchpad tools` shows the same tools and reasons', async () => {
    const registry = new ToolRegistry();
    const described = await registry.describe({ ...everything, fetchAllowHosts: [] });
    expect(described.tools.map((tool) => tool.name)).not.toContain('web_fetch');
    expect(described.failures).toContain(FETCH_LINE);
  });

  it('decides about the sandbox once per worker: a later change of the environment does not flip shell', async () => {
    const registry = new ToolRegistry();
    expect((await registry.catalogue(everything)).tools.map((entry) => entry.name)).not.toContain('shell');
    process.env.SCRATCHPAD_BWRAP_PATH = '/bin/true';
    expect((await registry.catalogue(everything)).tools.map((entry) => entry.name)).not.toContain('shell');
  });

  it('an agent naming a tool left out gets both the unmatched line and the reason a cycle notes', async () => {
    const registry = new ToolRegistry();
    const listing = await registry.catalogue({ ...everything, fetchAllowHosts: [] });
    const selection = selectTools(['echo', 'web_fetch'], listing.tools, []);
    expect(selection).toEqual({ offered: ['echo'], unmatched: ['web_fetch'] });
    expect(listing.failures).toEqual([expect.stringMatching(/^shell not offered: /), FETCH_LINE]);
    // A cycle that names no tools is not offered them either.
    expect(selectTools(undefined, listing.tools, ['spawn_subagent']).offered).toEqual([
      'echo',
      'fs_read',
      'fs_write',
      'web_search',
      'spawn_subagent',
    ]);
  });
});
