import type { PendingCall } from '../clients/approvals';
import { CliError, EXIT } from './errors';

// What the approval commands and chat say about waiting calls; pure, so unit tests cover the wording and choices.

/** Longest stretch of a call's arguments shown on one line. */
const ARGS_SHOWN = 120;

/** `shell({"command":"ls"})`, the arguments cut to one readable line. */
export function callText(call: Pick<PendingCall, 'tool' | 'args'>, width = ARGS_SHOWN): string {
  const args = call.args.replace(/\s+/g, ' ');
  return `${call.tool}(${args.length > width ? `${args.slice(0, width - 1)}…` : args})`;
}

/** One call for a list in an error: `1.0 shell({"command":"ls"}) in agent/a/cycle/2`. */
function listed(call: PendingCall): string {
  return `${call.callId} ${callText(call, 60)} in ${call.cycleId}`;
}

/**
 * The call a decision is for: the one named, or the only one waiting. Undefined when `callId` names none of them
 * (the workflow then says whether it is unknown or decided already); a one-line error when none or several wait.
 */
export function pickCall(calls: readonly PendingCall[], target: string, callId?: string): PendingCall | undefined {
  if (callId !== undefined) return calls.find((call) => call.callId === callId);
  if (calls.length === 0) throw new CliError(`no tool call of ${target} is waiting for a decision`);
  if (calls.length > 1) {
    throw new CliError(
      `${calls.length} tool calls of ${target} are waiting: name one of ${calls.map(listed).join('; ')}`,
      EXIT.usage,
    );
  }
  return calls[0];
}

/** Who and where, for the table: the agent, or the workflow a call is decided through. */
function owner(call: PendingCall): string {
  return call.agentId === undefined || call.target !== call.agentId ? call.target : call.agentId;
}

/** The waiting calls as a table: who decides through what, the call, since when, until when, and what it runs. */
export function approvalsTable(calls: readonly PendingCall[]): string {
  const rows = calls.map((call) => [
    owner(call),
    call.callId,
    call.tool,
    call.requestedAt.replace(/\.\d+Z$/, 'Z'),
    call.expiresAt.replace(/\.\d+Z$/, 'Z'),
    `${call.context ? `[${call.context}] ` : ''}${callText(call, 70)}`,
  ]);
  const header = ['TARGET', 'CALL', 'TOOL', 'REQUESTED', 'EXPIRES', 'CALL AS GIVEN'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

/** What a person typed at chat's `[y/N/e(dit)]`: approve, deny (N or Enter), edit, or something to ask again. */
export function parseAnswer(line: string): 'approve' | 'deny' | 'edit' | undefined {
  const answer = line.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return 'approve';
  if (answer === '' || answer === 'n' || answer === 'no') return 'deny';
  if (answer === 'e' || answer === 'edit') return 'edit';
  return undefined;
}
