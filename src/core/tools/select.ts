import { z } from 'zod';
import { getterOf } from '../shareable';
import { CYCLE_TOOLS } from './catalogue';
import type { CatalogueEntry } from './descriptor';
import { MAX_TOOL_PATTERNS, isToolPattern } from './pattern';

/** Tool names and globs, as settings, a cycle's input and the command line give them. */
export const ToolPatternsSchema = getterOf(
  z.array(z.string().refine(isToolPattern, 'a tool name or glob: A-Za-z0-9_- with * and ?')).max(MAX_TOOL_PATTERNS),
);

function matcher(pattern: string): (name: string) => boolean {
  if (!/[*?]/.test(pattern)) return (name) => name === pattern;
  const source = pattern.replace(/[*?]/g, (glob) => (glob === '*' ? '.*' : '.'));
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}

/** What a cycle offers: the selected names, and each pattern that matched no tool. */
export interface ToolSelection {
  offered: string[];
  unmatched: string[];
}

/**
 * Selects a cycle's tools from the worker's catalogue plus the workflow-side tools a cycle may offer
 * (`spawn_subagent`). With no patterns: the built-ins a cycle offers by default and every tool from code and MCP.
 */
export function selectTools(
  patterns: readonly string[] | undefined,
  catalogue: readonly Pick<CatalogueEntry, 'name' | 'source'>[],
  workflowSide: readonly string[],
): ToolSelection {
  const universe = [...catalogue.map((entry) => entry.name), ...workflowSide];
  if (patterns === undefined) {
    const external = catalogue.filter((entry) => entry.source !== 'builtin').map((entry) => entry.name);
    const defaults = new Set([...CYCLE_TOOLS, ...external]);
    return { offered: universe.filter((name) => defaults.has(name)), unmatched: [] };
  }
  // In the order the patterns give, each pattern's matches in catalogue order: a cycle's list keeps its order.
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const matches = universe.filter(matcher(pattern));
    if (matches.length === 0) unmatched.push(pattern);
    for (const name of matches) chosen.add(name);
  }
  return { offered: [...chosen], unmatched };
}
