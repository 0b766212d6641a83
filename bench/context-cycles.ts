import type { Client } from '@temporalio/client';
import type { SendResult } from '../src/core/agent/agent';
import { renderedSize } from '../src/core/scratchpad/budget';
import type { CycleResult } from '../src/core/cycle/input';
import type { AgentCycleWorkflow } from '../src/common/workflow-types';
import { type HistorySize, historySize } from './context-history';
import type { ScriptedTurn } from './context-script';
import { progress } from './measure';

/** One chat turn's cycle workflow, measured after it closed. */
export interface CycleMeasure {
  cycleId: string;
  history: HistorySize;
  /** Characters of the rendered scratchpad the cycle ended with. */
  renderedAfter: number;
  /** Content the budget moved to the observation store in this cycle. */
  archivedChars: number;
  archiveCuts: number;
  /** Whether this turn's reflection landed: its Known line ends the section (the newest line is never archived). */
  reflectionApplied: boolean;
  /** Why it did not land, from the `[UPDATE REJECTED]` note the cycle left. */
  rejection?: string;
}

const REJECTED = '[UPDATE REJECTED] ';

function rejectionOf(notes: string): string | undefined {
  const line = notes
    .split('\n')
    .reverse()
    .find((entry) => entry.startsWith(REJECTED));
  return line?.slice(REJECTED.length);
}

async function measureCycle(client: Client, result: SendResult, turn: ScriptedTurn): Promise<CycleMeasure> {
  const cycle = (await client.workflow.getHandle<AgentCycleWorkflow>(result.cycleId).result()) as CycleResult;
  const archived = cycle.archived ?? [];
  const reflectionApplied = cycle.after.understanding.known.endsWith(turn.known);
  const rejection = reflectionApplied ? undefined : rejectionOf(cycle.after.notes);
  return {
    cycleId: result.cycleId,
    history: await historySize(client, result.cycleId),
    renderedAfter: renderedSize(cycle.after),
    archivedChars: archived.reduce((sum, entry) => sum + entry.chars, 0),
    archiveCuts: archived.length,
    reflectionApplied,
    ...(rejection ? { rejection } : {}),
  };
}

/** Fetches each completed turn's cycle result and history (no worker needed: both come from the server). */
export async function measureCycles(
  client: Client,
  results: readonly SendResult[],
  turns: readonly ScriptedTurn[],
): Promise<CycleMeasure[]> {
  progress(`fetching ${results.length} cycle histories`);
  const measures: CycleMeasure[] = [];
  for (const [index, result] of results.entries()) measures.push(await measureCycle(client, result, turns[index]!));
  return measures;
}
