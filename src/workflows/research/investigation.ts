import type { CycleResult } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import { INVESTIGATION_DEPTH, draftFromBoardWrite } from '../../core/research/investigation';
import {
  type InvestigationInput,
  InvestigationInputSchema,
  type ParsedInvestigationInput,
} from '../../core/research/investigation-input';
import { FetchLedger } from '../../core/research/fetch-ledger';
import { CycleError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import type { CycleRun } from '../cycle/cycle-run';
import { runCycle } from '../cycle/run-cycle';
import type { CycleFeature } from '../cycle/tool-handler';
import { scratchpadTools } from '../agent/scratchpad-tools';
import { subagentTool } from '../agent/subagent';
import { BOARD_WRITE, writeAsWorker } from './board-write';

/** An investigation's result: the cycle's, and the board entry its accepted write appended (`VERIFIED e7`). */
export type InvestigationResult = CycleResult & { boardEntry?: string };

/** The field every `runTool` call of an investigation (and of its sub-agents) carries: `web_fetch` reads its board. */
export const BOARD_CONTEXT_KEY = 'boardId';

/**
 * A research worker's investigation (design.md, The research board): a task cycle whose `board_write` writes the
 * worker's fact through the supervisor's `write` update, and which an accepted write ends. Its `web_fetch` calls
 * name the board, whose tombstones the worker's tool refuses; its sub-agents read the same board but may not write.
 */
export async function investigationCycle(rawInput: InvestigationInput): Promise<InvestigationResult> {
  const input = parseWorkflowInput(InvestigationInputSchema(), rawInput, CycleError.BadInput, 'investigation input');
  let entry: string | undefined;
  const investigation = investigationFeature(input, (written) => (entry = written));
  const subagents = subagentTool({ depth: INVESTIGATION_DEPTH, withhold: [BOARD_WRITE] });
  const result = await runCycle(input, [scratchpadTools(), subagents, investigation]);
  return { ...result, ...(entry !== undefined && { boardEntry: entry }) };
}

/** `board_write`, the fetch ledger its evidence cites, the board for `web_fetch`, and the end at an accepted write. */
function investigationFeature(input: ParsedInvestigationInput, wrote: (entry: string) => void): CycleFeature {
  const { research } = input;
  let finished = false;
  const seen = new FetchLedger();
  const boardWrite = async (run: CycleRun, action: Action): Promise<Handled> => {
    const written = await writeFact(input, action.args, run, seen);
    if (written.entry !== undefined) {
      finished = true;
      wrote(written.entry);
    }
    return { step: { kind: 'tool', state: run.state, action }, observation: written.observation };
  };
  return {
    handlers: { [BOARD_WRITE]: boardWrite },
    observe: (action, observation) => seen.observe(action, observation),
    callContext: { [BOARD_CONTEXT_KEY]: research.supervisorId },
    waitContext: `research fact ${research.entity} / ${research.field} (${research.workerId})`,
    isFinished: () => finished,
  };
}

/** The observation the model sees, and the entry when the board accepted the write. */
async function writeFact(
  input: ParsedInvestigationInput,
  args: unknown,
  run: CycleRun,
  seen: FetchLedger,
): Promise<{ observation: Observation; entry?: string }> {
  const draft = draftFromBoardWrite(args, input.research, seen);
  if (typeof draft === 'string') return { observation: { ok: false, error: `board_write refused: ${draft}` } };
  const outcome = await writeAsWorker(input.research, draft, run.usageByModel);
  if (!outcome.ok) return { observation: { ok: false, error: `board_write refused: ${outcome.error}` } };
  const entry = `${outcome.entry.type} ${outcome.entry.id}`;
  return { observation: { ok: true, result: `board: ${entry} appended; the investigation is over` }, entry };
}
