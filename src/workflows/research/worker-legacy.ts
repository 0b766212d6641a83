import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { BoardWriteOutcome } from '../../activities/research/board';
import type { Draft } from '../../core/research/board';
import type { Observation } from '../../core/tools/observation';
import { toolNote } from '../../core/tools/observation';
import { WORKER_TOOLS, type WorkerInput, type WorkerResult } from '../../core/research/run';
import { draftFromBoardWrite, normaliseUrl, workerBrief } from '../../core/research/investigation';
import { modelActivityOptions, toolActivityOptions } from '../cycle/activity-options';

const { callModel } = proxyActivities<Activities>(modelActivityOptions(3));
const { runTool } = proxyActivities<Activities>(toolActivityOptions(3));

/** Messages kept after the brief: the prompt stays bounded however long the worker searches. */
const WINDOW = 12;
type Message = { role: 'user' | 'assistant'; content: string };

/**
 * A worker's investigation before it became a child cycle: its own model loop over a transcript window. Kept only
 * so histories recorded then replay; new workers run `research-worker.ts`'s investigation cycle.
 */
export async function legacyInvestigation(
  input: WorkerInput,
  tombstoned: Set<string>,
  write: (draft: Draft) => Promise<BoardWriteOutcome>,
): Promise<WorkerResult> {
  const fact = { entity: input.entity, field: input.field };
  const brief: Message = { role: 'user', content: workerBrief(input) };
  const messages: Message[] = [];
  for (let turn = 1; turn <= input.maxTurns; turn++) {
    const response = await callModel({
      system: 'research_worker',
      messages: [brief, ...messages.slice(-WINDOW)],
      tools: [...WORKER_TOOLS],
      toolChoice: 'any',
      ...(input.model && { model: input.model }),
    });
    const call = response.toolCalls[0];
    if (!call) {
      messages.push({ role: 'assistant', content: response.text.slice(0, 2000) || '(empty)' });
      messages.push({ role: 'user', content: 'Call exactly one tool.' });
      continue;
    }
    messages.push({ role: 'assistant', content: `${call.name}(${JSON.stringify(call.input).slice(0, 2000)})` });
    if (call.name === 'board_write') {
      const draft = draftFromBoardWrite(call.input, input);
      const outcome = typeof draft === 'string' ? { ok: false as const, error: draft } : await write(draft);
      if (outcome.ok)
        return { workerId: input.workerId, wrote: `${outcome.entry.type} ${outcome.entry.id}`, turns: turn };
      messages.push({ role: 'user', content: `board_write refused: ${outcome.error}` });
      continue;
    }
    const args = typeof call.input === 'object' && call.input !== null ? (call.input as Record<string, unknown>) : {};
    const observation = await investigate(call.name, args, input, turn, tombstoned);
    messages.push({ role: 'user', content: `step ${turn}: ${toolNote(call.name, call.input, observation)}` });
  }
  const reason = `no verified value within ${input.maxTurns} turns`;
  const final = await write({ type: 'UNVERIFIED', body: { ...fact, reason } });
  return {
    workerId: input.workerId,
    wrote: final.ok ? `UNVERIFIED ${final.entry.id}` : final.error,
    turns: input.maxTurns,
  };
}

async function investigate(
  name: string,
  args: Record<string, unknown>,
  input: WorkerInput,
  step: number,
  tombstoned: Set<string>,
): Promise<Observation> {
  if (!(WORKER_TOOLS as readonly string[]).includes(name)) {
    return { ok: false, error: `unknown tool "${name}" (available: ${WORKER_TOOLS.join(', ')})` };
  }
  if (name === 'web_fetch' && typeof args.url === 'string' && tombstoned.has(normaliseUrl(args.url))) {
    return { ok: false, error: `${args.url} is tombstoned in this run: never fetched again` };
  }
  return runTool({ cycleId: input.workerId, agentId: input.supervisorId, step, name, args });
}
