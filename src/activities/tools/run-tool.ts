import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Observation, SCRATCHPAD_READ, type ToolCallInput } from '../../core/tools/observation';
import { contentBytes } from '../observations/entry';
import { hasReferences, resolveReferences } from '../observations/references';
import { type ObservationRuntime, loadContent } from '../observations/runtime';
import { rebuildObservation, splitObservation } from '../observations/split';
import { isLargeObservation, syntheticObservation } from '../observations/synthetic';
import { TextView } from '../observations/text-view';
import { runToolCall } from '.';
import { errorMessage } from '../../common/error-message';
import { fallbackIdempotencyKey } from '../../core/tools/idempotency';
import { ObservationStoreError } from '../../common/failure-types';
import { scratchpadRead } from './scratchpad-read';
import { recordStageWrite, restoreForRead } from './stage-files';
import type { ToolOptions } from './types';
import type { ToolRegistry } from './registry';

// Same length as a real id, so the synthetic observation measured before `put` has its final size.
const PENDING_ID = '0000000000000000';

/**
 * One tool call with its observation handling (design.md, Large observations), all inside the activity so that no
 * large payload reaches workflow history: `{{stepN.field}}` references resolved from stored observations, the tool
 * run, its observation stored, and a large one replaced by the synthetic observation.
 */
export async function runObservedTool(
  call: ToolCallInput,
  tools: ToolOptions,
  runtime: ObservationRuntime,
  registry?: ToolRegistry,
): Promise<Observation> {
  const { observation, offload } = await produce(call, tools, runtime, registry);
  return offload ? recordObservation(call, observation, runtime) : recordInline(call, observation, runtime);
}

async function produce(
  call: ToolCallInput,
  tools: ToolOptions,
  runtime: ObservationRuntime,
  registry: ToolRegistry | undefined,
): Promise<{ observation: Observation; offload: boolean }> {
  if (call.name === SCRATCHPAD_READ) return { observation: await scratchpadRead(call, runtime), offload: true };
  let { args } = call;
  if (hasReferences(args)) {
    const resolved = await resolveReferences(args, (step) => stepObservation(runtime, call.cycleId, step));
    if (!resolved.ok) return { observation: { ok: false, error: resolved.error }, offload: true };
    args = resolved.args;
  }
  const { cycleId, step } = call;
  const idempotencyKey = call.idempotencyKey ?? fallbackIdempotencyKey(cycleId, step);
  const context = { sandboxRoot: tools.sandboxRoot, signal: tools.signal, cycleId, step, idempotencyKey };
  const external = await registry?.run(call.name, args, { ...context, agentId: call.agentId });
  if (external) return { observation: external.observation, offload: external.policy.offload };
  const { stagedRunId } = call;
  if (stagedRunId && call.name === 'fs_read' && typeof args.path === 'string') {
    await restoreForRead(stagedRunId, args.path, tools.sandboxRoot, runtime);
  }
  const observation = await runToolCall({ ...call, args }, tools);
  if (stagedRunId && call.name === 'fs_write' && typeof args.content === 'string') {
    return { observation: await recordStageWrite(stagedRunId, args.content, observation, runtime), offload: true };
  }
  return { observation, offload: true };
}

/** Most bytes of a result kept inline for a tool that must not offload; the rest is cut, saying so. */
export const MAX_INLINE_RESULT_BYTES = 32 * 1024;

/**
 * A tool with `offload: false`: its result stays in the observation, stored only for references, and cut at
 * {@link MAX_INLINE_RESULT_BYTES} so that a huge one cannot reach workflow history.
 */
async function recordInline(call: ToolCallInput, observation: Observation, runtime: ObservationRuntime) {
  const stored = await recordObservation(call, observation, { ...runtime, offloadBytes: Number.POSITIVE_INFINITY });
  const text = typeof stored.result === 'string' ? stored.result : JSON.stringify(stored.result ?? null);
  if (Buffer.byteLength(text, 'utf-8') <= MAX_INLINE_RESULT_BYTES) return stored;
  const cut = Buffer.from(text, 'utf-8')
    .subarray(0, MAX_INLINE_RESULT_BYTES)
    .toString('utf-8')
    .replace(/\uFFFD$/, '');
  const note = `result cut at ${MAX_INLINE_RESULT_BYTES} bytes of ${Buffer.byteLength(text, 'utf-8')}: ${call.name} keeps its results inline (offload: false)`;
  return { ...stored, result: cut, _note: note };
}

async function stepObservation(
  runtime: ObservationRuntime,
  turnId: string,
  step: number,
): Promise<Observation | undefined> {
  const entry = await runtime.store.findStep(turnId, step);
  const content = entry && (await loadContent(runtime, entry));
  if (entry === undefined || content === undefined) return undefined;
  return rebuildObservation(entry, content instanceof TextView ? content.text : content);
}

// Every observation is stored (references reach small ones too); only a large one is replaced. Verification uses it too. A read's result is
// already a bounded slice, and offloading it again would only hide what the model asked to see.
export async function recordObservation(
  call: ToolCallInput,
  observation: Observation,
  runtime: ObservationRuntime,
): Promise<Observation> {
  const split = splitObservation(observation);
  const content = typeof split.content === 'string' ? new TextView(split.content) : split.content;
  const large = call.name !== SCRATCHPAD_READ && isLargeObservation(observation, runtime.offloadBytes);
  const facts = { id: PENDING_ID, kind: split.kind, sizeBytes: contentBytes(split.content), step: call.step };
  const synthetic = large ? syntheticObservation(facts, content, observation) : undefined;
  let id: string;
  try {
    ({ id } = await runtime.store.put({
      turnId: call.cycleId,
      step: call.step,
      toolName: call.name,
      agentId: call.agentId ?? null,
      kind: split.kind,
      content: split.content,
      summary: typeof synthetic?.summary === 'string' ? synthetic.summary : null,
      metadata: split.metadata,
      resultFormat: split.resultFormat,
    }));
  } catch (error) {
    const message = `cannot store the ${facts.sizeBytes}-byte observation of ${call.name}: ${errorMessage(error)}`;
    // Retrying would run the tool again: only worth it when the observation cannot go back without the store.
    if (large) throw ApplicationFailure.retryable(message, ObservationStoreError.Unavailable);
    warn(`${message}; returning it unstored, so {{step${call.step}.…}} references to it will fail`);
    return observation;
  }
  runtime.cache.set(id, content);
  return synthetic ? { ...synthetic, scratchpad_id: id } : observation;
}

function warn(message: string): void {
  try {
    Context.current().log.warn(message);
  } catch {
    process.emitWarning(message);
  }
}
