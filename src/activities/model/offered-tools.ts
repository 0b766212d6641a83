import { ApplicationFailure } from '@temporalio/common';
import { TOOL_DESCRIPTIONS_BY_NAME, isToolName, toolInputSchema, toolNames } from './tool-definitions';
import { ModelError } from '../../common/failure-types';

/** A tool as a provider offers it to the model: its name, what it does, and its arguments' JSON Schema. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Looks up a tool the worker has from code or an MCP server; undefined when it has none of that name. */
export type ExternalToolLookup = (name: string) => OfferedTool | undefined;

/**
 * The requested tools with their descriptions and schemas: built-in and workflow-side tools from this package's
 * tables, the rest from the worker's own tools. An unknown name is a non-retryable `ModelError.BadRequest`.
 */
export function offeredTools(names: readonly string[], external: ExternalToolLookup = () => undefined): OfferedTool[] {
  const unknown: string[] = [];
  const offered = names.flatMap((name): OfferedTool[] => {
    if (isToolName(name)) {
      return [{ name, description: TOOL_DESCRIPTIONS_BY_NAME[name], inputSchema: toolInputSchema(name) }];
    }
    const tool = external(name);
    if (tool) return [tool];
    unknown.push(name);
    return [];
  });
  if (unknown.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `unknown tool(s) ${unknown.join(', ')}; this worker has: ${toolNames().join(', ')} and its own tools`,
      ModelError.BadRequest,
    );
  }
  return offered;
}
