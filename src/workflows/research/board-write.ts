import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { Draft } from '../../core/research/board';
import type { ResearchFact } from '../../core/research/investigation-input';
import type { Usage } from '../../core/cycle/model';
import type { BoardWriteOutcome } from '../../activities/research/board';

// Short, so a write lost with its worker process is retried soon; a retry rejoins the same update (one update id).
const { boardWrite } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
});

/** The tool name: offered to a research worker's investigation, which may write its fact. */
export const BOARD_WRITE = 'board_write';

/**
 * A worker's write through the supervisor's `write` update, as the worker, presenting its capability token. The
 * usage so far rides along: an
 * accepted write is the worker's last, so the supervisor counts it once, whatever generation of the run it is.
 */
export function writeAsWorker(
  research: Pick<ResearchFact, 'supervisorId' | 'workerId' | 'token'>,
  draft: Draft,
  usageByModel?: Readonly<Record<string, Usage>>,
): Promise<BoardWriteOutcome> {
  const author = { role: 'worker' as const, id: research.workerId };
  // The capability token proves the write is the worker's own; it rides the activity's input and the update's
  // arguments, which the payload codec encrypts, and is never logged or shown.
  const token = research.token !== undefined ? { token: research.token } : {};
  const request = { author, draft, ...token, ...(usageByModel && { usageByModel: { ...usageByModel } }) };
  return boardWrite({ supervisorId: research.supervisorId, request });
}
