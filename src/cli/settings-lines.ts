import type { AgentSettings } from '../core/agent/agent';
import { heartbeatTimeoutOf } from '../core/cycle/liveness';
import { DEFAULT_OUTPUT_CAPS } from '../core/cycle/output-caps';
import { formatDuration } from '../core/duration';

/** An agent's settings, one `key: value` a line, defaults spelt out: what `status` and `configure` print. */
export function settingsLines(settings: AgentSettings): string[] {
  const patterns = (list: string[] | null | undefined, none: string) => (list?.length ? list.join(', ') : none);
  return [
    `model: ${settings.model ?? "(the worker's default)"}`,
    `reflectModel: ${settings.reflectModel ?? '(the cycle model)'}`,
    `twoPhase: ${settings.twoPhase}`,
    `maxIterations: ${settings.maxIterations}`,
    `budgetChars: ${settings.budgetChars}`,
    `continueAsNewEvery: ${settings.continueAsNewEvery}`,
    `tools: ${patterns(settings.tools, '(the default: the built-ins and every tool the worker has)')}`,
    `approve: ${patterns(settings.approve, "(none of its own; the worker's and the tools' policies apply)")}`,
    `approvalTimeout: ${settings.approvalTimeoutMs === undefined ? '24h (the default)' : formatDuration(settings.approvalTimeoutMs)}`,
    `maxOutputTokens: ${(['respond', 'reflect', 'task'] as const).map((phase) => `${phase}=${settings.maxOutputTokens?.[phase] ?? DEFAULT_OUTPUT_CAPS[phase]}`).join(', ')}`,
    `heartbeatTimeout: ${(['model', 'tool', 'verification'] as const).map((kind) => `${kind}=${heartbeatTimeoutOf(settings, kind) / 1000}s`).join(', ')}`,
    ...(settings.cacheTtl ? [`cacheTtl: ${settings.cacheTtl}`] : []),
  ];
}
