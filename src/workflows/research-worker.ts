import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Author, Draft } from '../core/board';
import type { Observation } from '../core/observation';
import { toolNote } from '../core/observation';
import { WORKER_TOOLS, type WorkerInput, type WorkerResult } from '../core/research';
import { draftFromBoardWrite, normaliseUrl, workerBrief } from '../core/research-worker';
import { tombstonedSignal } from '../common/research-messages';
import { modelActivityOptions, toolActivityOptions } from './activity-options';

const { callModel } = proxyActivities<Activities>(modelActivityOptions(3));
const { runTool } = proxyActivities<Activities>(toolActivityOptions(3));
// Short, so a write lost with its worker process is retried soon; a retry rejoins the same update (one update id).
const { boardWrite } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

/** Messages kept after the brief: the prompt stays bounded however long the worker searches. */
const WINDOW = 12;
type Message = { role: 'user' | 'assistant'; content: string };

/**
 * One research worker: claims its fact (unless the supervisor delegated it already), investigates with the model
 * and `web_search` / `web_fetch` / `scratchpad_read`, and ends with one write to the supervisor's board. It always
 * writes: a worker out of turns records UNVERIFIED, so no fact stays PENDING behind a finished worker.
 */
export async function researchWorker(input: WorkerInput): Promise<WorkerResult> {
  const tombstoned = new Set(input.tombstoned.map(normaliseUrl));
  setHandler(tombstonedSignal, (url) => void tombstoned.add(normaliseUrl(url)));
  const author: Author = { role: 'worker', id: input.workerId };
  const write = (draft: Draft) => boardWrite({ supervisorId: input.supervisorId, request: { author, draft } });
  const fact = { entity: input.entity, field: input.field };
  if (!input.delegated) {
    const claim = await write({ type: 'PENDING', body: { ...fact, assignedTo: input.workerId } });
    if (!claim.ok) return { workerId: input.workerId, wrote: `claim refused: ${claim.error}`, turns: 0 };
  }
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
