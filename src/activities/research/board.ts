import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { BOARD_LIMITS, type BoardEntry, EvidenceSchema } from '../../core/research/board';
import { judgeEvidence } from '../../core/research/evidence-rule';
import { urlKey } from '../../core/research/url-key';
import { errorMessage } from '../../common/error-message';
import { ResearchError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { isWorkerObservation, researchInvestigationId } from '../../common/ids';
import { type WriteRequest, type WriteResult, boardQuery, writeUpdate } from '../../common/messages/research';
import type { ObservationStore } from '../observations/entry';
import { type ObservationRuntime, loadContent } from '../observations/runtime';
import { TextView } from '../observations/text-view';
import type { ToolCallInput } from '../../core/tools/observation';
import type { ToolOptions } from '../tools/types';

const EvidenceCheckSchema = z.object({
  /** The worker that wrote VERIFIED: the observation must be its own. */
  workerId: z.string().min(1).max(300),
  evidence: EvidenceSchema(),
  sourceUrl: z.string().min(1).max(BOARD_LIMITS.url),
  value: z.string().min(1).max(BOARD_LIMITS.name),
  /** The claim's fact and quote; absent from supervisors from before quotes (their claims are then refused). */
  entity: z.string().min(1).max(BOARD_LIMITS.name).optional(),
  field: z.string().min(1).max(BOARD_LIMITS.name).optional(),
  quote: z.string().max(BOARD_LIMITS.text).optional(),
  /** The run's entities, fields and field aliases, as its latest STRATEGY lists them. */
  run: z
    .object({
      entities: z.array(z.string().max(BOARD_LIMITS.name)).max(BOARD_LIMITS.list),
      fields: z.array(z.string().max(BOARD_LIMITS.name)).max(BOARD_LIMITS.list),
      aliases: z.record(z.string(), z.array(z.string().max(BOARD_LIMITS.name))).optional(),
    })
    .optional(),
});
export type EvidenceCheck = z.infer<typeof EvidenceCheckSchema>;

// The request itself is the supervisor's to judge: its `write` validator refuses a bad one, and the worker hears why.
const BoardWriteArgsSchema = z.object({
  supervisorId: z.string().min(1).max(300),
  request: z.record(z.string(), z.unknown()),
});

export type EvidenceVerdict = { ok: true } | { ok: false; reason: string };

export type BoardWriteOutcome = { ok: true; entry: WriteResult['entry'] } | { ok: false; error: string };

/** A step number names an iteration of the worker's investigation cycle (or a step of a worker from before). */
async function findWorkerStep(store: ObservationStore, workerId: string, step: number) {
  return (await store.findStep(researchInvestigationId(workerId), step)) ?? store.findStep(workerId, step);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** Why a tombstoned URL is refused: the model reads it as the fetch's error. */
export const TOMBSTONED = 'is tombstoned in this run: never fetched again';

/**
 * The URLs `web_fetch` must refuse for an investigation on `boardId`'s board (`urlKey` → why). A URL under
 * a FAILED_URL counts already: the supervisor tombstones it at its next evaluation, and the fetch must not wait for
 * that. Asked of the board itself (a query) right before the fetch, not of a copy signalled to the worker: every
 * write acknowledged before this moment is seen, so a URL is never fetched after its failure was recorded. The
 * tool applies the list to the URL after `{{stepN…}}` references resolve and to every redirect.
 */
export async function tombstonedUrls(client: Client | undefined, boardId: string): Promise<Map<string, string>> {
  if (!client) {
    throw ApplicationFailure.nonRetryable('web_fetch for a board needs a Temporal client', ResearchError.NoClient);
  }
  let entries: BoardEntry[];
  try {
    entries = await client.workflow.getHandle(boardId).query(boardQuery);
  } catch (error) {
    // Fetching blind could repeat a dead URL: retry until the board answers, or let the cycle fail.
    throw ApplicationFailure.retryable(
      `cannot read the board of ${boardId}: ${errorMessage(error)}`,
      ResearchError.Board,
    );
  }
  const denied = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type === 'TOMBSTONE' || entry.type === 'FAILED_URL') denied.set(urlKey(entry.body.url), TOMBSTONED);
  }
  return denied;
}

/**
 * What an investigation's call adds to the tools' options: its cycle names the board (`boardId`, the call context
 * workflows/research/investigation.ts sets), and `web_fetch` refuses the URLs that board tombstoned.
 */
export async function boardCallOptions(
  client: Client | undefined,
  call: Pick<ToolCallInput, 'name' | 'boardId'>,
): Promise<Pick<ToolOptions, 'fetchDeniedUrls'>> {
  if (call.name !== 'web_fetch' || call.boardId === undefined) return {};
  return { fetchDeniedUrls: await tombstonedUrls(client, call.boardId) };
}

/** Activities of the research board: writes from workers (who cannot call updates themselves) and evidence checks. */
export function createResearchActivities(client: Client | undefined, observations: ObservationRuntime) {
  return {
    /** A worker's write through the supervisor's `write` update; a refusal comes back as `ok: false`, not a failure. */
    async boardWrite(args: { supervisorId: string; request: WriteRequest }): Promise<BoardWriteOutcome> {
      const { supervisorId } = parseWorkflowInput(BoardWriteArgsSchema, args, ResearchError.BadInput, 'board write');
      if (!client) throw ApplicationFailure.nonRetryable('boardWrite needs a Temporal client', ResearchError.NoClient);
      const handle = client.workflow.getHandle(supervisorId);
      // One update id for every attempt of this activity: a retry after a worker died between the supervisor
      // accepting the write and this activity completing gets the first outcome back instead of writing twice.
      const { workflowExecution: execution, activityId } = Context.current().info;
      const updateId = execution && `${execution.workflowId}/${execution.runId}/${activityId}`;
      try {
        const result = await handle.executeUpdate(writeUpdate, { args: [args.request], ...(updateId && { updateId }) });
        return { ok: true, entry: result.entry };
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) return { ok: false, error: errorMessage(error.cause ?? error) };
        throw error;
      }
    },

    /**
     * Verified means checked (design.md): the cited observation is a successful `web_fetch` of `sourceUrl` stored by
     * this worker's investigation (its cycle or that cycle's sub-agents), and the claim's quote passes the evidence
     * rule against its content (core/research/evidence-rule.ts).
     */
    async checkEvidence(rawCheck: EvidenceCheck): Promise<EvidenceVerdict> {
      const check = parseWorkflowInput(EvidenceCheckSchema, rawCheck, ResearchError.BadInput, 'evidence check');
      const { store } = observations;
      const { observationId, step } = check.evidence;
      const entry =
        observationId !== undefined
          ? await store.info(observationId)
          : await findWorkerStep(store, check.workerId, step ?? -1);
      const cited = observationId ?? `step ${step}`;
      if (!entry) return { ok: false, reason: `no stored observation ${cited}` };
      if (!isWorkerObservation(entry.turnId, check.workerId))
        return { ok: false, reason: `observation ${cited} was not made by this worker` };
      if (entry.toolName !== 'web_fetch') return { ok: false, reason: `observation ${cited} is not a web_fetch` };
      const fetched = typeof entry.metadata.url === 'string' ? entry.metadata.url : '';
      if (!sameUrl(fetched, check.sourceUrl)) {
        return { ok: false, reason: `observation ${cited} fetched ${fetched || 'no URL'}, not ${check.sourceUrl}` };
      }
      if (entry.metadata.ok !== true) return { ok: false, reason: `the fetch of ${check.sourceUrl} failed` };
      const content = await loadContent(observations, entry);
      const text = content instanceof TextView ? content.text : undefined;
      if (text === undefined) return { ok: false, reason: `observation ${cited} is not text` };
      const entity = check.entity ?? '';
      const field = check.field ?? '';
      const run = check.run ?? { entities: [entity], fields: [field] };
      const claim = { entity, field, value: check.value, quote: check.quote };
      const ruling = judgeEvidence({ url: fetched, content: text }, claim, run);
      return ruling.ok ? ruling : { ok: false, reason: ruling.reason };
    },
  };
}
