import { z } from 'zod';
import { SUBAGENT_TOOL_ARGS, SUBAGENT_TOOL_DESCRIPTIONS } from '../../core/agent/subagent-tool';
import { RESEARCH_TOOL_ARGS, RESEARCH_TOOL_DESCRIPTIONS } from '../../core/research/tools';
import { SCRATCHPAD_TOOL_ARGS, SCRATCHPAD_TOOL_DESCRIPTIONS } from '../../core/scratchpad/tools';
import { STAGED_TOOL_ARGS, STAGED_TOOL_DESCRIPTIONS } from '../../core/staged/tools';
import { TOOL_ARGS, TOOL_DESCRIPTIONS } from '../../core/tools/catalogue';

/** Every tool a model request may name: the built-in tools and each feature's workflow-side tools. */
const ALL_TOOL_ARGS = {
  ...TOOL_ARGS,
  ...SCRATCHPAD_TOOL_ARGS,
  ...SUBAGENT_TOOL_ARGS,
  ...RESEARCH_TOOL_ARGS,
  ...STAGED_TOOL_ARGS,
};

export type ToolName = keyof typeof ALL_TOOL_ARGS;

/** What the model is told each tool does. */
export const TOOL_DESCRIPTIONS_BY_NAME: Record<ToolName, string> = {
  ...TOOL_DESCRIPTIONS,
  ...SCRATCHPAD_TOOL_DESCRIPTIONS,
  ...SUBAGENT_TOOL_DESCRIPTIONS,
  ...RESEARCH_TOOL_DESCRIPTIONS,
  ...STAGED_TOOL_DESCRIPTIONS,
};

/** Whether a request may name the tool. */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(ALL_TOOL_ARGS, name);
}

/** Every tool name, for an error that lists them. */
export function toolNames(): string[] {
  return Object.keys(ALL_TOOL_ARGS);
}

const inputSchemas = new Map<ToolName, Record<string, unknown>>();

/**
 * JSON Schema for a tool's arguments, for providers with native tool use. Built once per tool: every model call and
 * every cycle's catalogue asks for it. Callers only read it.
 */
export function toolInputSchema(name: ToolName): Record<string, unknown> {
  let schema = inputSchemas.get(name);
  if (!schema) {
    schema = z.toJSONSchema(ALL_TOOL_ARGS[name]()) as Record<string, unknown>;
    delete schema.$schema;
    inputSchemas.set(name, schema);
  }
  return schema;
}
