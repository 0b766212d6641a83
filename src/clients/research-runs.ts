import {
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { BoardEntry } from '../core/research/board';
import { DIRECTIVE_LIMITS } from '../core/research/limits';
import type { ResearchInput, ResearchResult, ResearchStatus } from '../core/research/run';
import { parseResearchWorkflowId, researchWorkflowId } from '../common/ids';
import {
  type WriteResult,
  boardQuery,
  researchDirectiveSignal,
  researchStatusQuery,
  synthesizeUpdate,
} from '../common/messages/research';
import { cycleOutcomeKey } from '../common/search-attributes';
import { listExecutions, visibilityString } from './visibility';
import { refusingOversize } from './payload-limit';
import type { ResearchWorkflow } from '../common/workflow-types';

/** One research run as visibility lists it. */
export interface ResearchRunSummary {
  workflowId: string;
  /** The run id of `research/<runId>`. */
  runId: string;
  status: string;
  /** `complete` or `incomplete` once the run has ended; empty before. */
  outcome: string;
  startTime: Date;
}

/** A run id as a person may give it, `demo-1` or `research/demo-1`, as the run id `demo-1`. */
export function researchRunId(id: string): string {
  return parseResearchWorkflowId(id) ?? id;
}

/** The static details of a run: its question and what it looks for, as markdown. */
function researchAskedDetails(input: ResearchInput): string {
  const list = (items: readonly string[] | undefined) =>
    items?.length ? items.join(', ') : 'planned by the supervisor';
  return [
    `**research ${input.runId}**`,
    '',
    `Question: ${input.question.slice(0, 2000)}`,
    `Entities: ${list(input.entities).slice(0, 2000)}`,
    `Fields: ${list(input.fields).slice(0, 2000)}`,
    '',
    'How it ended: the Memo tab (`outcome`, `details`); the board: `scratchpad research board ' + input.runId + '`.',
  ].join('\n');
}

/** How often {@link ResearchRuns.follow} reads the board. */
const FOLLOW_POLL_MS = 300;

/**
 * The research-runs facade: starts research runs (`research/<runId>`), steers them, and reads their
 * board, status and result.
 */
export class ResearchRuns {
  constructor(readonly client: Client) {}

  /** A run id as a person may give it, `demo-1` or `research/demo-1`, as the run id `demo-1`. */
  static runIdOf(id: string): string {
    return researchRunId(id);
  }

  /** Starts a run; `input.runId` names it. */
  start(input: ResearchInput, options: { taskQueue: string }): Promise<WorkflowHandle<ResearchWorkflow>> {
    return this.client.workflow.start<ResearchWorkflow>('research', {
      taskQueue: options.taskQueue,
      workflowId: researchWorkflowId(input.runId),
      args: [input],
      // What it was asked, in the Web UI with no worker running; the run's memo says what became of it.
      staticSummary: `research: ${input.question.replace(/\s+/g, ' ').trim().slice(0, 110)}`,
      staticDetails: researchAskedDetails(input),
    });
  }

  /** The board: asked of the running supervisor, or the final board its result carries once the run has closed. */
  async board(runId: string): Promise<BoardEntry[]> {
    const handle = this.handle(runId);
    // A closed run's queries need a worker of its task queue; its result carries the final board instead.
    const { status } = await handle.describe();
    return status.name === 'RUNNING' ? handle.query(boardQuery) : (await handle.result()).board;
  }

  /**
   * Waits for the run's result, handing `onEntry` each board entry once, in order, as it lands. The board is read
   * every 300 ms by default; while no worker answers the query yet, nothing has landed.
   */
  async follow(
    runId: string,
    onEntry: (entry: BoardEntry) => void,
    options: { pollMs?: number } = {},
  ): Promise<ResearchResult> {
    const handle = this.handle(runId);
    let delivered = 0;
    const deliverNew = async () => {
      const board = await handle.query(boardQuery).catch(() => [] as BoardEntry[]);
      for (const entry of board.slice(delivered)) onEntry(entry);
      delivered = Math.max(delivered, board.length);
    };
    const result = handle.result();
    let done = false;
    void result.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      await deliverNew();
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? FOLLOW_POLL_MS));
    }
    await deliverNew();
    return result;
  }

  /** Facts by state, active workers and the outcome (a query). */
  status(runId: string): Promise<ResearchStatus> {
    return this.handle(runId).query(researchStatusQuery);
  }

  /** A user directive: appended as USER_DIRECTIVE, read into STRATEGY at the supervisor's next evaluation. */
  directive(runId: string, text: string, by?: string): Promise<void> {
    const advice = `a run takes a directive of at most ${DIRECTIVE_LIMITS.text} characters`;
    return refusingOversize(`the directive to research run ${runId}`, advice, () =>
      this.handle(runId).signal(researchDirectiveSignal, { text, ...(by !== undefined && { by }) }),
    );
  }

  /** Asks for the answer now; refused while any fact is open. */
  synthesize(runId: string): Promise<WriteResult> {
    return this.handle(runId).executeUpdate(synthesizeUpdate);
  }

  /** The run's result, once it has ended. */
  result(runId: string): Promise<ResearchResult> {
    return this.handle(runId).result();
  }

  /** The research runs visibility knows of, newest first: those of `taskQueue` (one or several) when given, else all. */
  async *list(options: { taskQueue?: string | string[] } = {}): AsyncGenerator<ResearchRunSummary> {
    const queues = options.taskQueue === undefined ? [] : [options.taskQueue].flat();
    const onQueue =
      queues.length === 0 ? '' : ` AND TaskQueue IN (${queues.map((queue) => visibilityString(queue)).join(', ')})`;
    // Tolerant of a memo this client cannot decrypt: the run's outcome is a search attribute anyway.
    for (const execution of await listExecutions(this.client, `WorkflowType = 'research'${onQueue}`)) {
      yield summaryOf(execution);
    }
  }

  /** The run as visibility describes it (status and outcome), or undefined when there is no such run. */
  async describe(runId: string): Promise<ResearchRunSummary | undefined> {
    try {
      return summaryOf(await this.handle(runId).describe());
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  private handle(runId: string): WorkflowHandle<ResearchWorkflow> {
    return this.client.workflow.getHandle<ResearchWorkflow>(researchWorkflowId(researchRunId(runId)));
  }
}

function summaryOf(
  execution: Pick<WorkflowExecutionInfo, 'workflowId' | 'status' | 'typedSearchAttributes' | 'startTime'>,
): ResearchRunSummary {
  return {
    workflowId: execution.workflowId,
    runId: researchRunId(execution.workflowId),
    status: execution.status.name,
    outcome: execution.typedSearchAttributes.get(cycleOutcomeKey) ?? '',
    startTime: execution.startTime,
  };
}
