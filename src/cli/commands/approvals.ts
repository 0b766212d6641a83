import { WorkflowNotFoundError } from '@temporalio/client';
import { Approvals, type PendingCall, targetAgentId } from '../../clients/approvals';
import { validateAgentId } from '../../common/ids';
import { type Decision, type DecisionArgs, DecisionArgsSchema } from '../../core/tools/approval';
import { describeIssues } from '../../common/workflow-input';
import { errorMessage } from '../../common/error-message';
import { approvalsTable, pickCall } from '../approval-calls';
import { CliError, EXIT } from '../errors';
import * as runtime from '../runtime';
import { requireAgent } from './agents';

/** An agent id, or a workflow id (which has a `/`, so it is never an agent id). */
function checkTarget(target: string): void {
  if (targetAgentId(target) !== undefined || target.includes('/')) return;
  throw new CliError(validateAgentId(target) ?? `invalid target "${target}"`, EXIT.usage);
}

/**
 * The calls `target` waits on: an agent's (its cycles' and its stages') or one cycle's. A workflow that is not there
 * or no worker answers for is a one-line error: a decision needs a worker as much as the list does.
 */
async function pendingOf(approvals: Approvals, target: string): Promise<PendingCall[]> {
  const agentId = targetAgentId(target);
  try {
    return agentId === undefined ? await approvals.pending(target) : await approvals.list(agentId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no workflow ${target}`);
    // The client's "Failed to query Workflow" says little; its cause says why (no worker, a failing task).
    const cause = (error as { cause?: unknown }).cause;
    const why = cause === undefined ? errorMessage(error) : `${errorMessage(error)}: ${errorMessage(cause)}`;
    throw new CliError(`cannot ask ${target} for its waiting calls: ${why} (is a worker running?)`);
  }
}

/** `scratchpad approvals [AGENT] [--json]`: every call waiting for a decision, found through visibility. */
export async function approvalsCommand(agentId: string | undefined, options: { json?: boolean }): Promise<number> {
  if (agentId !== undefined) {
    const problem = validateAgentId(agentId);
    if (problem) throw new CliError(problem, EXIT.usage);
  }
  const approvals = new Approvals(await runtime.client(runtime.config()));
  const calls = agentId === undefined ? await approvals.list() : await pendingOf(approvals, agentId);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(calls, null, 2)}\n`);
    return EXIT.ok;
  }
  if (calls.length === 0) {
    process.stdout.write(`No tool call${agentId === undefined ? '' : ` of ${agentId}`} is waiting for a decision.\n`);
    return EXIT.ok;
  }
  process.stdout.write(
    `${approvalsTable(calls)}\n\nDecide with: scratchpad approve TARGET CALL [--args JSON] | scratchpad deny TARGET CALL [--reason TEXT]\n`,
  );
  return EXIT.ok;
}

/** Sends one decision, for the call named or the only one waiting; prints what was recorded. */
async function decide(target: string, callId: string | undefined, args: DecisionArgs) {
  checkTarget(target);
  const checked = DecisionArgsSchema().safeParse(args);
  if (!checked.success) throw new CliError(`invalid decision: ${describeIssues(checked.error)}`, EXIT.usage);
  const approvals = new Approvals(await runtime.client(runtime.config()));
  if (targetAgentId(target) !== undefined) await requireAgent(approvals.client, target, { orAnyRun: true });
  const call = pickCall(await pendingOf(approvals, target), target, callId);
  const decision: Decision = await runtime
    .unwrapUpdateErrors(() => approvals.decide(call?.target ?? target, { ...args, callId: call?.callId ?? callId }))
    .catch((error: unknown) => {
      // A schema's refusal of edited arguments comes in lines: a person reads one.
      if (error instanceof CliError) throw new CliError(error.message.replace(/\s*\n\s*/g, ' '), error.exitCode);
      throw error;
    });
  const verb = decision.decision === 'approve' ? 'Approved' : 'Denied';
  const edited = decision.editedArgs ? ` with arguments ${decision.editedArgs}` : '';
  const reason = decision.reason ? `: ${decision.reason}` : '';
  process.stdout.write(
    `${verb} ${decision.tool} call ${decision.callId} of ${decision.cycleId}${edited} (by ${decision.by})${reason}\n`,
  );
  return EXIT.ok;
}

/** `scratchpad approve TARGET [CALL_ID] [--args JSON] [--by NAME]`. */
export async function approveCommand(
  target: string,
  callId: string | undefined,
  options: { args?: Record<string, unknown>; by?: string },
): Promise<number> {
  return decide(target, callId, {
    decision: 'approve',
    ...(options.args && { args: options.args }),
    ...(options.by !== undefined && { by: options.by }),
  });
}

/** `scratchpad deny TARGET [CALL_ID] [--reason TEXT] [--by NAME]`. */
export async function denyCommand(
  target: string,
  callId: string | undefined,
  options: { reason?: string; by?: string },
): Promise<number> {
  return decide(target, callId, {
    decision: 'deny',
    ...(options.reason !== undefined && { reason: options.reason }),
    ...(options.by !== undefined && { by: options.by }),
  });
}
