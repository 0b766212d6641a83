import { z } from 'zod';
import type { Observation, ToolCallInput } from '../../core/tools/observation';
import { ACTIVITY_TOOLS, type ActivityToolName, isActivityTool, TOOL_ARGS } from '../../core/tools/catalogue';
import { echo } from './echo';
import { errorMessage } from '../../common/error-message';
import { fsRead, fsWrite } from './fs';
import { shell } from './shell';
import type { ToolOptions } from './types';
import { webFetch } from './web-fetch';
import { webSearch } from './web-search';

type Implementations = {
  [Name in ActivityToolName]: (
    args: z.infer<ReturnType<(typeof TOOL_ARGS)[Name]>>,
    options: ToolOptions,
  ) => Promise<Observation>;
};

const IMPLEMENTATIONS: Implementations = {
  echo,
  shell,
  fs_read: fsRead,
  fs_write: fsWrite,
  web_fetch: webFetch,
  web_search: webSearch,
};

/** Validates and runs one tool call. Never throws: every failure is an `ok: false` observation for the model. */
export async function runToolCall(call: ToolCallInput, options: ToolOptions): Promise<Observation> {
  const { name } = call;
  if (!isActivityTool(name)) {
    return { ok: false, error: `unknown tool "${name}" (available: ${ACTIVITY_TOOLS.join(', ')})` };
  }
  const parsed = TOOL_ARGS[name]().safeParse(call.args);
  if (!parsed.success) return { ok: false, error: `invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}` };
  const implementation = IMPLEMENTATIONS[name] as (args: unknown, options: ToolOptions) => Promise<Observation>;
  try {
    return await implementation(parsed.data, options);
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}
