import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadMcpConfig } from '../../src/activities/tools/mcp/config';
import { ToolRegistry } from '../../src/activities/tools/registry';
import { loadToolModule } from '../../src/workers/tool-sources';

const EXAMPLES = path.resolve(__dirname, '../../examples');

describe('the README examples of tools', () => {
  it('examples/tools.js loads as a tools module and its tools run', async () => {
    const tools = await loadToolModule(path.join(EXAMPLES, 'tools.js'));
    expect(tools.map((tool) => [tool.name, tool.policy])).toEqual([
      ['lookup_order', { retry: true, offload: true, timeoutMs: 10_000, approval: 'auto' }],
      ['send_note', { retry: false, offload: true, approval: 'auto' }],
    ]);
    const registry = new ToolRegistry(tools);
    const sandboxRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-example-tools-'));
    const key = 'agent/a/cycle/1/call/1.1';
    const context = { sandboxRoot, cycleId: 'agent/a/cycle/1', step: 1, agentId: 'a', idempotencyKey: key };
    expect((await registry.run('lookup_order', { id: 'A17' }, context))?.observation).toEqual({
      ok: true,
      result: { status: 'shipped', carrier: 'DHL' },
    });
    expect((await registry.run('lookup_order', { id: '17' }, context))?.observation.ok).toBe(false);
    expect((await registry.run('send_note', { text: 'call back' }, context))?.observation).toEqual({
      ok: true,
      result: 'noted',
    });
    // Another attempt of the same call (the same key) writes nothing; another call (another key) writes its note.
    expect((await registry.run('send_note', { text: 'call back' }, context))?.observation.result).toBe('noted already');
    const next = { ...context, step: 2, idempotencyKey: 'agent/a/cycle/1/call/2.1' };
    expect((await registry.run('send_note', { text: 'call back' }, next))?.observation.result).toBe('noted');
    expect(fs.readFileSync(path.join(sandboxRoot, 'notes.txt'), 'utf8')).toBe(
      `a: call back [${key}]\na: call back [agent/a/cycle/1/call/2.1]\n`,
    );
  });

  it('examples/mcp.json is a valid config: two stdio servers, the HTTP one disabled', () => {
    const config = loadMcpConfig(path.join(EXAMPLES, 'mcp.json'));
    expect(config.servers.map((server) => [server.name, server.transport])).toEqual([
      ['everything', 'stdio'],
      ['memory', 'stdio'],
    ]);
    expect(config.warnings).toEqual([]);
  });
});
