import { ApplicationFailure } from '@temporalio/common';
import { type ToolName, isToolName, toolNames } from './tool-definitions';
import { ModelError } from '../../common/failure-types';

/** The requested tool names, checked; an unknown name is a non-retryable `ModelError.BadRequest`. */
export function offeredTools(names: readonly string[]): ToolName[] {
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `unknown tool(s) ${unknown.join(', ')}; known: ${toolNames().join(', ')}`,
      ModelError.BadRequest,
    );
  }
  return names as ToolName[];
}
