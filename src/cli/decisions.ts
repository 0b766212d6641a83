import type { Command } from '@commander-js/extra-typings';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Approvals, type PendingCall, targetAgentId } from '../clients/approvals';
import { validateAgentId } from '../common/ids';
import { type Decision, type DecisionArgs, DecisionArgsSchema } from '../core/tools/approval';
import { describeIssues } from '../common/workflow-input';
import { errorMessage } from '../common/error-message';
import { requireAgent } from './agent-access';
import { pickCall } from './approval-calls';
import { CliError, EXIT } from './errors';
import * as runtime from './runtime';

// What `approvals`, `approve` and `deny` share: the calls a target waits on, and one decision sent.

/** The arguments of `approve` and `deny`: who waits (an agent or a workflow) and the call decided. */
export function decisionArguments(command: Command) {
  return command
    .argument(
      '<agent>',
      'agent id, or the workflow id of a cycle no agent runs (a research worker\'s or a stage\'s, as "approvals" lists it)',
    )
    .argument('[callId]', 'the call to decide; may be left out when exactly one is pending');
}

/** `--by` of `approve` and `deny`. */
export const DECIDED_BY = ['--by <name>', 'who decides, as the audit trail records it (default: the OS user)'] as const;

/** An agent id, or a workflow id (which has a `/`, so it is never an agent id). */
function checkTarget(target: string): void {
  if (targetAgentId(target) !== undefined || target.includes('/')) return;
  throw new CliError(validateAgentId(target) ?? `invalid target "${target}"`, EXIT.usage);
}

/**
 * The calls `target` waits on: an agent's (its cycles' and its stages') or one cycle's. A workflow that is not there
 * or no worker answers for is a one-line error: a decision needs a worker as much as the list does.
 */
export async function pendingOf(approvals: Approvals, target: string): Promise<PendingCall[]> {
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

/** Sends one decision, for the call named or the only one waiting; prints what was recorded. */
export async function decide(target: string, callId: string | undefined, args: DecisionArgs) {
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
