import { MAX_WORKER_REPORT_TOKENS } from './limits';
import { type Usage, UsageByModelSchema } from '../cycle/model';

/**
 * Why a worker's reported usage may not be counted, or null. It comes in a `write` anyone who can reach the run may
 * send, so beside its shape its total is bounded: a forged report cannot make the run's usage absurd.
 */
export function usageReportRefusal(usageByModel: unknown): string | null {
  const parsed = UsageByModelSchema().safeParse(usageByModel);
  if (!parsed.success) return 'usage is by model, each with its token counts';
  const total = Object.values(parsed.data as Record<string, Usage>).reduce(
    (sum, usage) => sum + usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    0,
  );
  if (total > MAX_WORKER_REPORT_TOKENS) {
    return `usage of ${total} tokens is more than one worker may report (${MAX_WORKER_REPORT_TOKENS})`;
  }
  return null;
}
