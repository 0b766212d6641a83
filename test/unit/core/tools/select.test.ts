import { selectTools } from '../../../../src/core/tools/select';
import { CycleInputSchema } from '../../../../src/core/cycle/input';
import { defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { agentSelection } from '../../../../src/cli/tool-catalogue';

const catalogue = [
  { name: 'echo', source: 'builtin' },
  { name: 'fs_read', source: 'builtin' },
  { name: 'fs_write', source: 'builtin' },
  { name: 'web_fetch', source: 'builtin' },
  { name: 'lookup_order', source: 'code' },
  { name: 'github__list_issues', source: 'mcp:github' },
  { name: 'github__delete_repo', source: 'mcp:github' },
];

describe('tool selection by names and globs', () => {
  it('offers the built-ins a cycle knows and every tool from code and MCP by default', () => {
    expect(selectTools(undefined, catalogue, ['spawn_subagent']).offered).toEqual([
      'echo',
      'fs_read',
      'fs_write',
      'web_fetch',
      'lookup_order',
      'github__list_issues',
      'github__delete_repo',
      'spawn_subagent',
    ]);
  });

  it("matches * and ? in the patterns' order, each name once, and reports patterns that match nothing", () => {
    const selection = selectTools(['fs_*', 'web_fetch', 'github__list_*', 'f?_read', 'slack__*', 'nope'], catalogue, [
      'spawn_subagent',
    ]);
    expect(selection.offered).toEqual(['fs_read', 'fs_write', 'web_fetch', 'github__list_issues']);
    expect(selection.unmatched).toEqual(['slack__*', 'nope']);
  });

  it('treats other characters literally', () => {
    expect(selectTools(['fs.read'], [{ name: 'fs_read', source: 'builtin' }], []).unmatched).toEqual(['fs.read']);
  });

  it('scratchpad tools --agent: settings naming no tools get the worker default selection, as cycles do', () => {
    const policy = { retry: true, offload: true };
    const tools = catalogue.map((entry) => ({ ...entry, description: '', inputSchema: {}, policy }));
    const worker = { tools, failures: [], defaults: ['echo', 'lookup_*'] };
    expect(agentSelection(worker, null).offered).toEqual(['echo', 'lookup_order']);
    expect(agentSelection(worker, ['fs_*']).offered).toEqual(['fs_read', 'fs_write']);
    expect(agentSelection({ tools, failures: [] }, null).offered).toContain('github__delete_repo');
  });

  it('refuses a pattern with other characters at the edge', () => {
    const input = { kind: 'task', agentId: 'a', before: defaultScratchpad(), tools: ['fs_*', 'rm -rf'] };
    expect(CycleInputSchema().safeParse(input).success).toBe(false);
  });
});
