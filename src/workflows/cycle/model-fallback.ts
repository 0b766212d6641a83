import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { ModelRequest, ModelResponse } from '../../core/cycle/model';
import { type FailedModelDetail, isFailedModelDetail } from '../../core/cycle/model-list';
import { headCodePoints } from '../../core/text';
import { appendNote } from '../../core/scratchpad/update';
import { ModelError } from '../../common/failure-types';
import { callWithinContext } from './context-recovery';
import type { CycleRun } from './cycle-run';

/**
 * Failures about the request itself, not the model: a malformed request (our bug) or a list naming a model the worker
 * refuses. The next model would be sent the same, so these never fall back.
 */
const REQUEST_ERRORS: readonly string[] = [ModelError.BadRequest, ModelError.NotAllowed];

/** Characters of one model's failure that a note or the cycle's error quotes. */
const FAILURE_CHARS = 300;

/** One model of a list that failed for good, and how. */
interface FailedModel extends FailedModelDetail {
  failure: string;
}

/**
 * The model a call failed on, when the failure is the model's own and the next of its list may answer: Temporal's
 * retries are spent (or the error is final: not found, a context too small even after recovery, no key), and the
 * activity named the model because its list names several. A timeout of the activity itself (its worker gone) names
 * none: it is the worker's failure, not the model's.
 */
function failedModelOf(error: unknown): FailedModel | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  const { type, message, details } = error.cause;
  if (type && REQUEST_ERRORS.includes(type)) return undefined;
  const detail = details?.find(isFailedModelDetail);
  return detail && { ...detail, failure: headCodePoints(`${type ?? 'Error'}: ${message}`, FAILURE_CHARS) };
}

/** The cycle's failure when every model of a list failed for good, naming each with its failure. */
function everyModelFailed(failed: readonly FailedModel[]): ApplicationFailure {
  const each = failed.map((model) => `${model.failedModel} (${model.failure})`).join('; ');
  return ApplicationFailure.nonRetryable(`every model of the list failed: ${each}`, ModelError.AllFailed);
}

/** `request` asking the `fallback`th model of its list; the first needs no field, so requests before lists read as ever. */
function withFallback(request: ModelRequest, fallback: number): ModelRequest {
  return fallback > 0 ? { ...request, fallback } : request;
}

/** The line a fallback notes: which model failed, how, and that the next is asked. */
function fallbackLine(model: FailedModel): string {
  return `[MODEL] ${model.failedModel} failed for good (${model.failure}): asking the next model of its list`;
}

/**
 * Model fallback (design.md, Model fallback): a call that fails for good on one model of a list goes to the next, in
 * workflow code, so the choice is in history and replays. Once a model has failed, later calls on that list start
 * past it rather than wait out its retries again; the next cycle tries the list from its first model.
 */
export class ModelFallbacks {
  // Keyed by the list as requested; '' is the worker's default, which only the worker knows.
  private readonly start = new Map<string, number>();
  private readonly failed = new Map<string, FailedModel[]>();
  /** The spec that answered the latest call, when it was not the first of its list. */
  answeredBy: string | undefined;

  /** One cycle's call through the list `request.model` names; with `rebuild`, each model gets context recovery. */
  call(
    run: CycleRun,
    request: ModelRequest,
    rebuild: (() => ModelRequest) | undefined,
    streamed = false,
  ): Promise<ModelResponse> {
    const send = (first: ModelRequest, fallback: number) => {
      const once = (sent: ModelRequest) => run.callModelOnce(withFallback(sent, fallback), streamed);
      return rebuild ? callWithinContext(run, once, first, rebuild) : once(first);
    };
    const note = (line: string) => {
      run.state = { ...run.state, notes: appendNote(run.state.notes, line) };
    };
    return this.callWith(request, send, { rebuild, note });
  }

  /**
   * One call through the list `request.model` names, `send` asking the `fallback`th model. Past a failure the request
   * is built anew by `rebuild`, when given: context recovery may have archived part of the memory meanwhile.
   */
  async callWith(
    request: ModelRequest,
    send: (request: ModelRequest, fallback: number) => Promise<ModelResponse>,
    options: { rebuild?: () => ModelRequest; note?: (line: string) => void } = {},
  ): Promise<ModelResponse> {
    const list = request.model ?? '';
    const failed = this.failed.get(list) ?? [];
    this.failed.set(list, failed);
    const from = this.start.get(list) ?? 0;
    for (let index = from; ; index++) {
      try {
        const response = await send(index === from || !options.rebuild ? request : options.rebuild(), index);
        this.answeredBy = index > 0 ? response.spec : undefined;
        return response;
      } catch (error) {
        const model = failedModelOf(error);
        if (!model) throw error;
        failed.push(model);
        if (index + 1 >= model.models) throw everyModelFailed(failed);
        this.start.set(list, index + 1);
        options.note?.(fallbackLine(model));
      }
    }
  }
}

/**
 * A model call outside a cycle (a staged run's plan, a research supervisor's own turns) through its list, by the
 * `callModel` activity the caller proxies; `note` hears of each fallback.
 */
export function callModelThroughList(
  callModel: (request: ModelRequest) => Promise<ModelResponse>,
  request: ModelRequest,
  note?: (line: string) => void,
): Promise<ModelResponse> {
  const send = (sent: ModelRequest, fallback: number) => callModel(withFallback(sent, fallback));
  return new ModelFallbacks().callWith(request, send, { note });
}
