import { z } from 'zod';
import { getterOf } from '../shareable';

// Not exported bare: a worker deep-freezes what its shared workflow modules export, and zod resets a regex's lastIndex.
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The providers' rule for a tool name (Anthropic and OpenAI alike): `A-Za-z0-9_-`, at most 64 characters. */
export function isToolNameValid(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** Longest timeout a tool may ask for: an activity attempt that long still heartbeats. */
export const MAX_TOOL_TIMEOUT_MS = 60 * 60 * 1000;

/** `ask`: each call waits for a person's decision before it runs (core/tools/approval-policy.ts); `auto`: it runs. */
export type ApprovalPolicy = 'ask' | 'auto';

/**
 * How the cycle runs a tool's calls. `timeoutMs` bounds one call (the model gets an error observation when it runs
 * out); `retry: false` runs a call at most once, even when its worker dies mid-call; `offload: false` keeps a large
 * result inline instead of moving it to the observation store; `approval: 'ask'` makes each call wait for a person.
 */
export const ToolPolicySchema = getterOf(
  z.strictObject({
    timeoutMs: z.number().int().positive().max(MAX_TOOL_TIMEOUT_MS).optional(),
    retry: z.boolean().default(true),
    offload: z.boolean().default(true),
    // Absent (a catalogue recorded before approvals, a descriptor built by hand): `auto`.
    approval: z.enum(['ask', 'auto']).optional(),
  }),
);
export type ToolPolicy = z.output<ReturnType<typeof ToolPolicySchema>>;
export type ToolPolicyInput = z.input<ReturnType<typeof ToolPolicySchema>>;

/** Where a tool comes from: this package, the user's code, or an MCP server (`mcp:NAME`). */
export const ToolSourceSchema = getterOf(z.string().regex(/^(builtin|code|mcp:[A-Za-z0-9_-]{1,64})$/));
export type ToolSource = 'builtin' | 'code' | `mcp:${string}`;

/**
 * A tool as the workflow knows it: name, source and policy. Listed once per cycle and recorded in history, so a
 * replay never asks a server; descriptions and schemas stay on the worker, which hands them to the model.
 */
export const CatalogueEntrySchema = getterOf(
  z.object({
    name: z.string().regex(TOOL_NAME_PATTERN),
    source: ToolSourceSchema(),
    policy: ToolPolicySchema(),
  }),
);
export type CatalogueEntry = z.output<ReturnType<typeof CatalogueEntrySchema>>;

/** A catalogue entry with what the model is told: `scratchpad tools` prints these. */
export interface ToolDescriptor extends CatalogueEntry {
  description: string;
  inputSchema: Record<string, unknown>;
}
