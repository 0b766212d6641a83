import type { ToolRegistry } from '../activities/tools/registry';

/** Where each of the worker's tools comes from and whether it asks first, read once from its registry. */
export function toolInfoOf(
  registry: ToolRegistry | undefined,
): (name: string) => Promise<{ source: string; approval: string } | undefined> {
  let tools: Promise<Map<string, { source: string; approval: string }>> | undefined;
  return async (name) => {
    if (!registry) return undefined;
    tools ??= registry.describe().then(
      (listing) =>
        new Map<string, { source: string; approval: string }>(
          listing.tools.map((tool) => [
            tool.name,
            {
              source: tool.source.startsWith('mcp:') ? 'mcp' : tool.source,
              approval: tool.policy.approval ?? 'auto',
            },
          ]),
        ),
    );
    return (await tools)?.get(name);
  };
}
