import { z } from 'zod';
import { MAX_TOOL_TIMEOUT_MS, type ToolPolicy, isToolNameValid } from '../../core/tools/descriptor';
import { type ArgsValidator, type JsonSchema, compileSchema, isObjectSchema } from './json-schema';

/** What a tool's `run` gets besides its arguments. */
export interface ToolContext {
  /** The worker's sandbox folder (absolute); a tool that touches files should stay inside it. */
  sandboxRoot: string;
  /** Aborted when the call times out or the cycle is cancelled: pass it to `fetch` and child processes. */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (the worker also heartbeats every few seconds on its own). */
  heartbeat(details?: unknown): void;
  agentId?: string;
  cycleId: string;
  /** The step of the cycle this call is. */
  step: number;
  /**
   * The same for every attempt of this call, on any worker, and different for every other call: a tool with an
   * external effect (a payment, a mail) records it with the effect and skips a call whose key it has applied.
   */
  idempotencyKey: string;
  log: { info(message: string): void; warn(message: string): void; error(message: string): void };
}

/** JSON a tool may return besides a string. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A zod schema, as far as this package needs one (any zod 4 copy: the user's own or this package's). */
interface ZodLike<Args> {
  safeParse(value: unknown): { success: true; data: Args } | { success: false; error: unknown };
  _zod: unknown;
}

/** What `defineTool` takes. `input` is a zod 4 schema (arguments arrive parsed) or a JSON Schema object. */
export interface ToolDefinitionInput<Args> {
  /** `A-Za-z0-9_-`, at most 64 characters: the name the model calls. */
  name: string;
  /** What the model is told the tool does and when to use it. */
  description: string;
  input: ZodLike<Args> | JsonSchema;
  run(args: Args, context: ToolContext): Promise<string | JsonValue> | string | JsonValue;
  /** One call's limit; the model gets an error observation when it runs out. Default: the activity's 5 minutes. */
  timeoutMs?: number;
  /** `false`: a call runs at most once, even when its worker dies mid-call (a payment, a sent mail). */
  retry?: boolean;
  /** `false`: a large result stays inline (cut at a hard cap) instead of going to the observation store. */
  offload?: boolean;
  /** `'ask'`: every call waits for a person to approve, edit or deny it before it runs. Default `'auto'`. */
  approval?: 'ask' | 'auto';
}

/** A tool from code, checked and ready for the worker: its JSON Schema, its validator and its policy. */
export interface CodeTool {
  readonly kind: 'durable-scratchpad/tool';
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly policy: ToolPolicy;
  /** Validates arguments: the parsed value (zod's output) or the reason, one problem per line. */
  parse(args: unknown): { ok: true; args: unknown } | { ok: false; error: string };
  run(args: unknown, context: ToolContext): Promise<unknown> | unknown;
}

/** Longest description a tool may give the model. */
const MAX_DESCRIPTION_CHARS = 4000;

function isZod(input: unknown): input is ZodLike<unknown> {
  return (
    typeof input === 'object' &&
    input !== null &&
    '_zod' in input &&
    typeof (input as ZodLike<unknown>).safeParse === 'function'
  );
}

function fromZod<Args>(name: string, schema: ZodLike<Args>): Pick<CodeTool, 'inputSchema' | 'parse'> {
  let inputSchema: JsonSchema;
  try {
    inputSchema = z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch (error) {
    throw new Error(`tool ${name}: its zod input cannot be described as JSON Schema: ${(error as Error).message}`);
  }
  delete inputSchema.$schema;
  if (!isObjectSchema(inputSchema)) throw new Error(`tool ${name}: input must be a zod object schema (z.object)`);
  return {
    inputSchema,
    parse(args) {
      const parsed = schema.safeParse(args);
      if (parsed.success) return { ok: true, args: parsed.data };
      return { ok: false, error: z.prettifyError(parsed.error as z.ZodError) };
    },
  };
}

function fromJsonSchema(name: string, schema: JsonSchema): Pick<CodeTool, 'inputSchema' | 'parse'> {
  if (!isObjectSchema(schema)) throw new Error(`tool ${name}: input must be a JSON Schema with "type": "object"`);
  let validate: ArgsValidator;
  try {
    validate = compileSchema(schema);
  } catch (error) {
    throw new Error(`tool ${name}: its input is not a valid JSON Schema: ${(error as Error).message}`);
  }
  return {
    inputSchema: structuredClone(schema),
    parse(args) {
      const checked = validate(args);
      return checked.ok ? { ok: true, args } : checked;
    },
  };
}

/**
 * A tool the agent may call, defined in code: register it with `ScratchpadPlugin({ tools: [...] })` or
 * `scratchpad worker --tools MODULE`. Throws at once on a bad name, description, schema or policy.
 */
export function defineTool<Args>(definition: ToolDefinitionInput<Args>): CodeTool {
  const { name, description, input, run } = definition ?? ({} as ToolDefinitionInput<Args>);
  if (typeof name !== 'string' || !isToolNameValid(name)) {
    throw new Error(`tool name ${JSON.stringify(name)}: use A-Za-z0-9_- only, at most 64 characters`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new Error(`tool ${name}: give a description, which tells the model what the tool does`);
  }
  if (description.length > MAX_DESCRIPTION_CHARS) {
    throw new Error(
      `tool ${name}: its description has ${description.length} characters; at most ${MAX_DESCRIPTION_CHARS}`,
    );
  }
  if (typeof run !== 'function') throw new Error(`tool ${name}: run must be a function (args, context) => result`);
  const { timeoutMs, retry, offload, approval } = definition;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TOOL_TIMEOUT_MS)) {
    throw new Error(`tool ${name}: timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TOOL_TIMEOUT_MS}`);
  }
  for (const [key, value] of Object.entries({ retry, offload })) {
    if (value !== undefined && typeof value !== 'boolean')
      throw new Error(`tool ${name}: ${key} must be true or false`);
  }
  if (approval !== undefined && approval !== 'ask' && approval !== 'auto') {
    throw new Error(`tool ${name}: approval must be 'ask' or 'auto'`);
  }
  const schema = isZod(input)
    ? fromZod(name, input)
    : input !== null && typeof input === 'object'
      ? fromJsonSchema(name, input as JsonSchema)
      : undefined;
  if (!schema) throw new Error(`tool ${name}: input must be a zod object schema or a JSON Schema object`);
  const policy: ToolPolicy = {
    retry: retry ?? true,
    offload: offload ?? true,
    approval: approval ?? 'auto',
    ...(timeoutMs && { timeoutMs }),
  };
  return Object.freeze({
    kind: 'durable-scratchpad/tool' as const,
    name,
    description,
    ...schema,
    policy,
    run: run as CodeTool['run'],
  });
}

/** Whether a value is a tool `defineTool` made (a module's export is checked with it). */
export function isCodeTool(value: unknown): value is CodeTool {
  return typeof value === 'object' && value !== null && (value as CodeTool).kind === 'durable-scratchpad/tool';
}
