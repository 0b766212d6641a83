import type { Command } from 'commander';
import { parseJsonObject } from '../options';
import type { LazyAction } from './command-group';

const TARGET = [
  '<agent>',
  'agent id, or the workflow id of a cycle no agent runs (a research worker\'s or a stage\'s, as "approvals" lists it)',
] as const;
const CALL_ID = ['[callId]', 'the call to decide; may be left out when exactly one is pending'] as const;
const BY = ['--by <name>', 'who decides, as the audit trail records it (default: the OS user)'] as const;

/** Adds the commands of durable approvals: list the calls waiting for a person, approve or deny one. */
export function registerApprovalCommands(program: Command, action: LazyAction): void {
  const approvals = () => import('../commands/approvals');
  program
    .command('approvals')
    .description('tool calls waiting for a decision, across agents, research workers and stages (visibility)')
    .argument('[agent]', "only this agent's calls")
    .option('--json', 'print as JSON')
    .action(action(approvals, 'approvalsCommand'));
  program
    .command('approve')
    .description('let a waiting tool call run, as the model gave it or with edited arguments')
    .argument(...TARGET)
    .argument(...CALL_ID)
    .option(
      '--args <json>',
      'run with these arguments instead (a JSON object, checked against the tool schema)',
      parseJsonObject,
    )
    .option(...BY)
    .action(action(approvals, 'approveCommand'));
  program
    .command('deny')
    .description('refuse a waiting tool call; the model sees "denied by <who>: <reason>"')
    .argument(...TARGET)
    .argument(...CALL_ID)
    .option('--reason <text>', 'why, for the model to adapt to')
    .option(...BY)
    .action(action(approvals, 'denyCommand'));
}
