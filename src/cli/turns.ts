import type { Agents } from '../clients/agents';
import type { CycleRecord } from '../core/agent/agent';

// What `send` and `chat` share about a chat turn once its reply is out: the agent's adoption of it and its notices.

/** The first non-blank line of a text, for a one-line report. */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? text.trim()
  );
}

/** The lines a chat turn owes the user beside its reply: a reply cut at the cap, a memory reflect did not update. */
export function turnNotices(record: Pick<CycleRecord, 'noUpdate' | 'replyCut'> | undefined): string[] {
  const lines: string[] = [];
  if (record?.replyCut)
    lines.push('reply cut at the output cap (raise it: scratchpad configure --max-output respond=N)');
  if (record?.noUpdate) lines.push(`memory not updated this turn: ${record.noUpdate}`);
  return lines;
}

/**
 * The agent's record of `cycleId` once it has adopted the cycle's result (reflect included: the reply comes first).
 * The agent answers when it has (its `waitForCycle` update), so an in-process worker stopped after this leaves nothing
 * of the turn to the next worker, and the next command finds the memory updated. With `timeoutMs`, undefined when
 * no answer came in time (no worker serves the agent any more) or the agent refused.
 */
export async function adoptedCycle(
  agents: Agents,
  agentId: string,
  cycleId: string,
  options: { timeoutMs?: number } = {},
): Promise<CycleRecord | undefined> {
  const wait = () => agents.waitForCycle({ agentId }, cycleId);
  if (options.timeoutMs === undefined) return wait();
  const signal = AbortSignal.timeout(options.timeoutMs);
  return agents.client.withAbortSignal(signal, wait).catch(() => undefined);
}
