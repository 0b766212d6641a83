import { ApplicationFailure } from '@temporalio/common';
import { TOOL_ARGS, type ToolName } from '../../core/tools/catalogue';
import { ModelError } from '../../common/failure-types';

function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_ARGS, name);
}

/** The requested tool names, checked; an unknown name is a non-retryable `ModelError.BadRequest`. */
export function offeredTools(names: readonly string[]): ToolName[] {
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `unknown tool(s) ${unknown.join(', ')}; known: ${Object.keys(TOOL_ARGS).join(', ')}`,
      ModelError.BadRequest,
    );
  }
  return names as ToolName[];
}
