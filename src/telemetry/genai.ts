/** Attribute names of OpenTelemetry's GenAI conventions, and this package's own beside them. */
export const GENAI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  tokenType: 'gen_ai.token.type',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  /** The cycle's phase a model call served: respond, reflect or task. */
  phase: 'durable_scratchpad.phase',
  toolSource: 'durable_scratchpad.tool.source',
  toolApproval: 'durable_scratchpad.tool.approval',
} as const;

/** The agent a cycle's workflow id names (`agent/<agent>/cycle/<n>`, and the ids of sub-agents, stages, workers). */
export function agentOfWorkflowId(workflowId: string): string | undefined {
  return /^agent\/(.+?)\/cycle\//.exec(workflowId)?.[1] ?? /^staged\/(.+?)\/\d+/.exec(workflowId)?.[1];
}

/** The provider and model a spec names: `anthropic:claude-x`, `openai:m@http://…#tools`, `scripted:file`. */
export function modelOfSpec(spec: string | undefined): { provider: string; model: string } {
  if (!spec) return { provider: 'unknown', model: 'unknown' };
  const colon = spec.indexOf(':');
  if (colon < 0) return { provider: 'unknown', model: spec };
  const provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  const model = provider === 'openai' ? rest.replace(/[@#].*$/, '') : rest.replace(/#.*$/, '');
  return { provider, model: model || 'unknown' };
}

/** The spec one call of a request asks: its own list's (or the worker default's) entry at `fallback`. */
export function specOfCall(requested: string | undefined, fallback: number | undefined, defaultSpec?: string) {
  const list = (requested ?? defaultSpec)?.split(',').map((spec) => spec.trim());
  return list?.[fallback ?? 0] ?? list?.[0];
}

/** A system prompt id as the phase it serves. */
export function phaseOfSystem(system: string | undefined): 'respond' | 'reflect' | 'task' {
  if (system?.startsWith('respond')) return 'respond';
  return system === 'reflect' ? 'reflect' : 'task';
}

const MAX_CONTENT_CHARS = 16 * 1024;

/** JSON of a content value, cut so one attribute cannot weigh more than a few kilobytes. */
export function contentJson(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text;
}
