import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { type Evidence, valueOccursIn } from '../core/board';
import { errorMessage } from '../common/error-message';
import { type WriteRequest, type WriteResult, writeUpdate } from '../common/research-messages';
import { type ObservationRuntime, loadContent } from './observations/runtime';
import { TextView } from './observations/text-view';

export interface EvidenceCheck {
  /** The worker that wrote VERIFIED: the observation must be its own. */
  workerId: string;
  evidence: Evidence;
  sourceUrl: string;
  value: string;
}

export type EvidenceVerdict = { ok: true } | { ok: false; reason: string };

export type BoardWriteOutcome = { ok: true; entry: WriteResult['entry'] } | { ok: false; error: string };

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** Activities of the research board: writes from workers (who cannot call updates themselves) and evidence checks. */
export function createResearchActivities(client: Client | undefined, observations: ObservationRuntime) {
  return {
    /** A worker's write through the supervisor's `write` update; a refusal comes back as `ok: false`, not a failure. */
    async boardWrite(args: { supervisorId: string; request: WriteRequest }): Promise<BoardWriteOutcome> {
      if (!client) throw ApplicationFailure.nonRetryable('boardWrite needs a Temporal client', 'Research.NoClient');
      const handle = client.workflow.getHandle(args.supervisorId);
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
     * Seed 003's "verified means checked": the cited observation is a successful `web_fetch` of `sourceUrl` stored by
     * this worker, and the value occurs in its content.
     */
    async checkEvidence(check: EvidenceCheck): Promise<EvidenceVerdict> {
      const { store } = observations;
      const { observationId, step } = check.evidence;
      const entry =
        observationId !== undefined
          ? await store.info(observationId)
          : await store.findStep(check.workerId, step ?? -1);
      const cited = observationId ?? `step ${step}`;
      if (!entry) return { ok: false, reason: `no stored observation ${cited}` };
      if (entry.turnId !== check.workerId)
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
      if (!valueOccursIn(text, check.value)) {
        return { ok: false, reason: `value "${check.value}" does not occur in ${check.sourceUrl}` };
      }
      return { ok: true };
    },
  };
}
