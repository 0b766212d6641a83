import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { Draft } from '../../core/research/board';
import type { ResearchContext } from '../../core/cycle/input';
import type { Usage } from '../../core/cycle/model';
import type { Observation } from '../../core/tools/observation';
import { draftFromBoardWrite } from '../../core/research/investigation';
import type { BoardWriteOutcome } from '../../activities/research/board';

// Short, so a write lost with its worker process is retried soon; a retry rejoins the same update (one update id).
const { boardWrite } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

/** The tool name: offered only to a cycle that investigates a research fact and may write it. */
export const BOARD_WRITE = 'board_write';

/**
 * A worker's write through the supervisor's `write` update, as the worker. The usage so far rides along: an
 * accepted write is the worker's last, so the supervisor counts it once, whatever generation of the run it is.
 */
export function writeAsWorker(
  research: Pick<ResearchContext, 'supervisorId' | 'workerId'>,
  draft: Draft,
  usageByModel?: Readonly<Record<string, Usage>>,
): Promise<BoardWriteOutcome> {
  const author = { role: 'worker' as const, id: research.workerId };
  const request = { author, draft, ...(usageByModel && { usageByModel: { ...usageByModel } }) };
  return boardWrite({ supervisorId: research.supervisorId, request });
}

/** `board_write` from a cycle: the observation the model sees, and the entry when the board accepted it. */
export async function boardWriteTool(
  research: ResearchContext | undefined,
  args: unknown,
  usageByModel: Readonly<Record<string, Usage>>,
): Promise<{ observation: Observation; entry?: string }> {
  if (!research?.mayWrite) {
    const why = research ? 'a sub-agent may not write its parent worker’s fact' : 'this cycle investigates no fact';
    return { observation: { ok: false, error: `board_write refused: ${why}; report what you found instead` } };
  }
  const draft = draftFromBoardWrite(args, research);
  if (typeof draft === 'string') return { observation: { ok: false, error: `board_write refused: ${draft}` } };
  const outcome = await writeAsWorker(research, draft, usageByModel);
  if (!outcome.ok) return { observation: { ok: false, error: `board_write refused: ${outcome.error}` } };
  const entry = `${outcome.entry.type} ${outcome.entry.id}`;
  return { observation: { ok: true, result: `board: ${entry} appended; the investigation is over` }, entry };
}
