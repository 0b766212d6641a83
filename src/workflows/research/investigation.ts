import type { InputOf, ParsedCycleInput } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import { draftFromBoardWrite } from '../../core/research/investigation';
import { FetchLedger } from '../../core/research/fetch-ledger';
import type { CycleRun } from '../cycle/cycle-run';
import type { CycleFeature } from '../cycle/tool-handler';
import { BOARD_WRITE, writeAsWorker } from './board-write';

/**
 * A research worker's investigation (design.md, The research board): `board_write` writes the worker's fact through
 * the supervisor's `write` update, and an accepted write ends the cycle. `web_fetch` asks the board for tombstones.
 */
export function investigationFeature(input: InputOf<'investigation'>): CycleFeature {
  let entry: string | undefined;
  const seen = new FetchLedger();
  const boardWrite = async (run: CycleRun, action: Action): Promise<Handled> => {
    const written = await writeFact(input, action.args, run, seen);
    if (written.entry !== undefined) entry = written.entry;
    return { step: { kind: 'tool', state: run.state, action }, observation: written.observation };
  };
  return {
    handlers: { [BOARD_WRITE]: boardWrite },
    observe: (action, observation) => seen.observe(action, observation),
    callContext: { boardId: input.research.supervisorId },
    isFinished: () => entry !== undefined,
    result: () => (entry !== undefined ? { boardEntry: entry } : {}),
  };
}

/**
 * Every other cycle: `board_write` is never offered (a call to it is an unknown tool). A sub-agent of an
 * investigation still reads its board's tombstones, but may not write its parent worker's fact.
 */
export function noBoardWrite(input: Exclude<ParsedCycleInput, { kind: 'investigation' }>): CycleFeature {
  const research = input.kind === 'subagent' ? input.research : undefined;
  return {
    ...(research && { callContext: { boardId: research.supervisorId } }),
    owns: [BOARD_WRITE],
    offer: (tools) => tools.filter((tool) => tool !== BOARD_WRITE),
  };
}

/** The observation the model sees, and the entry when the board accepted the write. */
async function writeFact(
  input: InputOf<'investigation'>,
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
