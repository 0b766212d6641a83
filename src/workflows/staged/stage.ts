import type { InputOf } from '../../core/cycle/input';
import type { Action } from '../../core/cycle/parse';
import type { Handled } from '../../core/cycle/plan-calls';
import type { Observation } from '../../core/tools/observation';
import { normalizePath, pathCapRefusal } from '../../core/staged/rules';
import type { CycleRun } from '../cycle/cycle-run';
import type { CycleFeature } from '../cycle/tool-handler';

/** Most files one `write_files` call writes. */
const MAX_FILES_PER_CALL = 10;

/**
 * One stage of a staged run (design.md, Staged runs): the stage's context appended to the user message, a cap on
 * the distinct paths `fs_write` may touch (a write to one more is refused with an observation), and `write_files`,
 * several `fs_write`s in one reply under the same cap. The result lists the paths written and refused.
 */
export function stageFeature(input: InputOf<'stage'>): CycleFeature {
  const touched: string[] = [];
  const refused: string[] = [];
  const { context, maxPaths } = input.stage;
  const pathOf = (action: Action) =>
    action.tool === 'fs_write' && typeof action.args.path === 'string' ? action.args.path : undefined;
  return {
    handlers: { write_files: writeFiles },
    refuse(action) {
      const path = pathOf(action);
      const refusal = path === undefined ? undefined : pathCapRefusal(touched, path, maxPaths);
      if (refusal !== undefined && path !== undefined) refused.push(normalizePath(path));
      return refusal;
    },
    observe(action, observation) {
      const path = pathOf(action);
      if (path !== undefined && observation.ok && !touched.includes(normalizePath(path))) {
        touched.push(normalizePath(path));
      }
    },
    decoratePrompt: (prompt) => (context ? `${prompt}\n\n${context}` : prompt),
    result: () => ({ touchedPaths: [...touched], ...(refused.length > 0 ? { refusedPaths: [...refused] } : {}) }),
  };
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
