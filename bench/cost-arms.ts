import type { Client } from '@temporalio/client';
import { AnthropicProvider } from '../src/activities/model/anthropic';
import type { OfferedTool } from '../src/activities/model/offered-tools';
import type { ModelProvider } from '../src/activities/model/provider';
import type { AgentTarget } from '../src/clients/agents';
import type { AgentSettings } from '../src/core/agent/agent';
import type { Message } from '../src/core/cycle/model';
import type { ScriptedTurn } from './context-script';
import { type ConversationRun, runConversation } from './context-run';
import { type BilledCall, type MessagesStandIn, TRANSCRIPT_ACCOUNT } from './cost-stand-in';
import { progress } from './measure';

/** The model every arm responds with, and the one a third of its price that one arm reflects with. */
export const MAIN_MODEL = 'claude-sonnet-4-6';
export const CHEAP_MODEL = 'claude-haiku-4-5';

/** Input price relative to {@link MAIN_MODEL}'s (list prices: $3 and $1 per million input tokens). */
export function priceOf(model: string): number {
  return model === CHEAP_MODEL ? 1 / 3 : 1;
}

/** One way of holding the conversation, billed under its own account. */
export interface Arm {
  account: string;
  label: string;
}

/** An arm that is this project: an agent with these settings, whose model specs reach the stand-in. */
export interface ProjectArm extends Arm {
  settings: Partial<AgentSettings>;
  /** Model spec → the model it calls. */
  models: Record<string, string>;
}

export const PROJECT_ARMS: readonly ProjectArm[] = [
  {
    account: 'defaults',
    label: 'scratchpad, defaults',
    settings: { model: 'cost:defaults' },
    models: { 'cost:defaults': MAIN_MODEL },
  },
  {
    account: 'reflect-third',
    label: 'scratchpad, reflect on a 1/3-price model',
    settings: { model: 'cost:reflect-third', reflectModel: 'cost:reflect-third-reflect' },
    models: { 'cost:reflect-third': MAIN_MODEL, 'cost:reflect-third-reflect': CHEAP_MODEL },
  },
  {
    account: 'single-phase',
    label: 'scratchpad, single-phase',
    settings: { model: 'cost:single-phase', twoPhase: false },
    models: { 'cost:single-phase': MAIN_MODEL },
  },
];

export const TRANSCRIPT_ARM: Arm = { account: TRANSCRIPT_ACCOUNT, label: 'cached transcript (anchor)' };

/** The real Anthropic provider for every project arm's model spec, each arm on its own account at the stand-in. */
export function armProviders(standIn: MessagesStandIn): Record<string, ModelProvider> {
  const providers: Record<string, ModelProvider> = {};
  for (const arm of PROJECT_ARMS) {
    for (const [spec, model] of Object.entries(arm.models)) {
      providers[spec] = new AnthropicProvider({ model, apiKey: arm.account, baseURL: standIn.url });
    }
  }
  return providers;
}

/** Every project arm's conversation through its own agent on the worker's queue, the arms side by side. */
export async function runProjectArms(
  client: Client,
  taskQueue: string,
  turns: readonly ScriptedTurn[],
): Promise<ConversationRun[]> {
  return Promise.all(
    PROJECT_ARMS.map(async (arm) => {
      const target: AgentTarget = { agentId: `${taskQueue}-${arm.account}`, taskQueue, settings: arm.settings };
      progress(`${arm.label}: ${turns.length} turns through agent ${target.agentId}`);
      const run = await runConversation(client, target, turns);
      // The reply comes before reflect ends: the last cycle is awaited so its reflect is billed, and it ends whole.
      const last = run.results.at(-1);
      if (last) {
        await client.workflow
          .getHandle(last.cycleId)
          .result()
          .catch((error: Error) => (run.error ??= `${last.cycleId}: ${error.message}`));
      }
      return run;
    }),
  );
}

/** The tools the project offered at its first respond call, for the anchor to offer the same. */
export function firstOfferedTools(calls: readonly BilledCall[]): OfferedTool[] {
  const first = calls.find((call) => call.account === PROJECT_ARMS[0]!.account && call.phase === 'respond');
  return (first?.tools ?? []).map((tool) => ({
    name: String(tool.name),
    description: String(tool.description),
    inputSchema: tool.input_schema as Record<string, unknown>,
  }));
}

/**
 * The anchor: the usual chat loop a user would run instead, with no Temporal in between: the whole conversation in
 * every request, the respond system prompt, the same tools, and one breakpoint on the newest message, so each turn
 * reads the turns before it from the cache (the adapter also marks the system prompt, as such loops do).
 */
export async function runTranscript(
  standIn: MessagesStandIn,
  turns: readonly ScriptedTurn[],
  tools: OfferedTool[],
): Promise<string | undefined> {
  const provider = new AnthropicProvider({ model: MAIN_MODEL, apiKey: TRANSCRIPT_ACCOUNT, baseURL: standIn.url });
  const history: Message[] = [];
  for (const [index, turn] of turns.entries()) {
    const messages: Message[] = [...history, { role: 'user', content: [{ text: turn.input, cache: true }] }];
    const request = { system: 'respond' as const, messages, tools, toolChoice: 'auto' as const, maxTokens: 2048 };
    const response = await provider.complete(request);
    if (response.text !== turn.reply) return `transcript turn ${index + 1}: the reply is not the scripted one`;
    history.push({ role: 'user', content: turn.input }, { role: 'assistant', content: response.text });
    if ((index + 1) % 50 === 0) progress(`${TRANSCRIPT_ARM.label}: turn ${index + 1}/${turns.length}`);
  }
  return undefined;
}
