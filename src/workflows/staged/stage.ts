import type { CycleResult } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import { normalizePath, pathCapRefusal } from '../../core/staged/rules';
import {
  type ParsedStageCycleInput,
  type StageCycleInput,
  StageCycleInputSchema,
  type StageCycleResult,
  type StageFile,
} from '../../core/staged/input';
import { CycleError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import type { CycleRun } from '../cycle/cycle-run';
import { runCycle } from '../cycle/run-cycle';
import type { CycleFeature } from '../cycle/tool-handler';
import { scratchpadTools } from '../agent/scratchpad-tools';

/** Most files one `write_files` call writes. */
const MAX_FILES_PER_CALL = 10;

/**
 * One stage of a staged run (design.md, Staged runs): a task cycle under the staged rules with the stage's context
 * appended to the user message, a cap on the distinct paths `fs_write` may touch (a write to one more is refused with
 * an observation), and `write_files`, several `fs_write`s in one reply under the same cap. Its tool calls name the
 * run, so what `fs_write` writes also goes to the observation store and a read on another worker finds it. The result
 * lists the paths written and refused, and where the newest content of each written path is stored.
 */
export async function stageCycle(rawInput: StageCycleInput): Promise<StageCycleResult> {
  const input = parseWorkflowInput(StageCycleInputSchema(), rawInput, CycleError.BadInput, 'stage input');
  const stage = stageFeature(input);
  const result = await runCycle(input, [scratchpadTools(), stage.feature]);
  return { ...result, ...stage.result() };
}

/** The stage's rules as a feature of its cycle, and the fields its result adds. */
export function stageFeature(input: ParsedStageCycleInput): {
  feature: CycleFeature;
  result: () => Omit<StageCycleResult, keyof CycleResult>;
} {
  const touched: string[] = [];
  const refused: string[] = [];
  const files: StageFile[] = [];
  const { context, maxPaths } = input.stage;
  // A stage's cycle id is `<staged run id>/<label>` (common/ids.ts, stageCycleId).
  const cut = input.cycleId?.lastIndexOf('/') ?? -1;
  const stagedRunId = cut > 0 ? input.cycleId?.slice(0, cut) : undefined;
  const label = input.cycleId?.slice(cut + 1);
  const pathOf = (action: Action) =>
    action.tool === 'fs_write' && typeof action.args.path === 'string' ? action.args.path : undefined;
  const feature: CycleFeature = {
    handlers: { write_files: writeFiles },
    systemPrompt: 'staged',
    ...(stagedRunId && { callContext: { stagedRunId }, waitContext: `stage ${label} of ${stagedRunId}` }),
    refuse(action) {
      const path = pathOf(action);
      const refusal = path === undefined ? undefined : pathCapRefusal(touched, path, maxPaths);
      if (refusal !== undefined && path !== undefined) refused.push(normalizePath(path));
      return refusal;
    },
    observe(action, observation) {
      const path = pathOf(action);
      if (path === undefined || !observation.ok) return;
      if (!touched.includes(normalizePath(path))) touched.push(normalizePath(path));
      const file = storedFile(normalizePath(path), observation);
      if (file === undefined) return;
      const index = files.findIndex((known) => known.path === file.path);
      if (index >= 0) files.splice(index, 1);
      files.push(file);
    },
    decoratePrompt: (prompt) => (context ? `${prompt}\n\n${context}` : prompt),
  };
  const result = () => ({
    touchedPaths: [...touched],
    ...(refused.length > 0 ? { refusedPaths: [...refused] } : {}),
    ...(files.length > 0 ? { stageFiles: [...files] } : {}),
  });
  return { feature, result };
}

/** The reference `fs_write` returned for what it stored, if it stored it (activities/tools/stage-files.ts). */
function storedFile(path: string, observation: Observation): StageFile | undefined {
  const { content_id: contentId, sha256 } = observation;
  return typeof contentId === 'string' && typeof sha256 === 'string' ? { path, contentId, sha256 } : undefined;
}

/** Each file is an `fs_write` through the cycle's `runTool`, so the path cap sees every one. */
async function writeFiles(run: CycleRun, action: Action, step: number): Promise<Handled> {
  const files = Array.isArray(action.args.files) ? (action.args.files as unknown[]).slice(0, MAX_FILES_PER_CALL) : [];
  let observation: Observation;
  if (files.length === 0) {
    observation = { ok: false, error: 'write_files needs "files": [{"path": ..., "content": ...}]' };
  } else {
    const results: string[] = [];
    for (const file of files) {
      const { path, content } = (file ?? {}) as { path?: unknown; content?: unknown };
      const written = await run.runTool({ tool: 'fs_write', args: { path, content } }, step);
      results.push(written.ok ? String(written.result) : `${String(path)}: ${written.error ?? 'failed'}`);
    }
    observation = { ok: true, result: results.join('\n') };
  }
  return { step: { kind: 'tool', state: run.state, action }, observation };
}
