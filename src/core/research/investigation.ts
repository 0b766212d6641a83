import { SPAWN_SUBAGENT } from '../tools/catalogue';
import { RESEARCH_TOOL_ARGS } from './tools';
import type { Draft } from './board';
import type { InvestigationInput } from './investigation-input';
import type { WorkerInput } from './run';
import { BOARD_LIMITS, MAX_QUOTE_CHARS, WORKER_TOOLS } from './limits';
import type { FetchLedger } from './fetch-ledger';
import { MAX_SECTION_CHARS } from '../scratchpad/scratchpad';
import { freshCycleInput } from '../agent/subagent';
import { codePointLength, headCodePoints } from '../text';

/** Work tools of a worker's investigation: the research tools, and a sub-agent within the depth limit. */
export const INVESTIGATION_TOOLS: readonly string[] = [...WORKER_TOOLS, SPAWN_SUBAGENT];

/** The supervisor is a top-level run at depth 0: its workers' investigations are one below it. */
export const INVESTIGATION_DEPTH = 1;

/** The worker's first message: its fact, the goal as the latest STRATEGY states it, and URLs it must not fetch. */
export function workerBrief(input: WorkerInput): string {
  const lines = [
    `Fact: ${input.entity} / ${input.field} (attempt ${input.attempt})`,
    `Goal: ${input.goal}`,
    `You are ${input.workerId}.`,
  ];
  if (input.searchHint) lines.push(`Search hint: ${input.searchHint}`);
  if (input.searchQuery) lines.push(`Search query (search with it first): ${input.searchQuery}`);
  if (input.tombstoned.length > 0) lines.push(`Tombstoned (never fetch): ${input.tombstoned.join(', ')}`);
  return lines.join('\n');
}

/**
 * The worker's investigation as a fresh child cycle built like a sub-agent: purpose and current task are the fact,
 * the workspace is the brief; it may write only this fact, through `board_write`.
 */
export function investigationInput(input: WorkerInput, cycleId: string): InvestigationInput & { cycleId: string } {
  const task = `Research ${input.entity} / ${input.field}`;
  const finish =
    'Finish with board_write: VERIFIED with the value as written on a page you fetched, citing that web_fetch by ' +
    'step or scratchpad_id, with a quote: the words of that page that state the value, copied verbatim, naming the ' +
    'field and the entity (the board checks the quote against the page); UNVERIFIED with the reason; or FAILED_URL ' +
    'for a URL your own web_fetch saw fail.';
  const fresh = freshCycleInput({
    agentId: input.supervisorId,
    cycleId,
    task,
    context: fitBrief(workerBrief(input), finish),
    maxIterations: input.maxTurns,
    ...(input.model !== undefined ? { model: input.model } : {}),
    tools: [...INVESTIGATION_TOOLS],
  });
  return {
    ...fresh,
    research: {
      supervisorId: input.supervisorId,
      workerId: input.workerId,
      entity: input.entity,
      field: input.field,
      ...(input.token !== undefined && { token: input.token }),
    },
  };
}

/**
 * The brief within WORKSPACE's cap, the closing instruction kept whole: a long goal or tombstone list is cut, and
 * the URLs cut off stay refused, since `web_fetch` asks the board itself.
 */
function fitBrief(brief: string, finish: string): string {
  const room = MAX_SECTION_CHARS - codePointLength(finish) - 2;
  const fitted = codePointLength(brief) > room ? `${headCodePoints(brief, room - 1)}…` : brief;
  return `${fitted}\n${finish}`;
}

/** Whose fact a `board_write` is for. */
export interface FactOwner {
  workerId: string;
  entity: string;
  field: string;
}

/**
 * A `board_write` call turned into a board draft for this worker's fact, or the reason it cannot be one. A FAILED_URL
 * must name a URL whose fetch this investigation saw fail (`seen`), and says what failed.
 */
export function draftFromBoardWrite(args: unknown, input: FactOwner, seen: FetchLedger): Draft | string {
  const parsed = RESEARCH_TOOL_ARGS.board_write().safeParse(args);
  if (!parsed.success) return `invalid board_write arguments: ${parsed.error.issues[0]?.message ?? 'unknown'}`;
  const call = parsed.data;
  const fact = { entity: input.entity, field: input.field };
  switch (call.status) {
    case 'VERIFIED': {
      if (!call.value || !call.source_url) return 'VERIFIED needs value and source_url';
      if (call.observation_id === undefined && call.step === undefined) {
        return 'VERIFIED needs the observation_id or step of your web_fetch of source_url';
      }
      const quote = call.quote?.trim();
      if (quote && codePointLength(quote) > MAX_QUOTE_CHARS) {
        return `the quote has ${codePointLength(quote)} characters; at most ${MAX_QUOTE_CHARS}: quote only the words that state the value`;
      }
      const evidence = {
        ...(call.observation_id && { observationId: call.observation_id }),
        ...(call.step !== undefined && { step: call.step }),
      };
      // A claim without a quote still goes to the board, which records it UNVERIFIED saying why.
      const body = { ...fact, value: call.value, sourceUrl: call.source_url, retrievedBy: input.workerId, evidence };
      return { type: 'VERIFIED', body: { ...body, ...(quote && { quote }) } };
    }
    case 'UNVERIFIED':
      return {
        type: 'UNVERIFIED',
        body: { ...fact, ...(call.value && { claimedValue: call.value }), reason: call.reason || 'no reason given' },
      };
    case 'FAILED_URL': {
      if (!call.url) return 'FAILED_URL needs url';
      const failure = seen.failureOf(call.url);
      if (failure === undefined) {
        return (
          `FAILED_URL is only for a URL your own web_fetch saw fail (an error, or a status of 400 or more); ` +
          `${call.url} was not fetched in this investigation, or its fetch succeeded`
        );
      }
      const said = call.reason?.trim() ? `; the worker says: ${call.reason.trim()}` : '';
      const failureReason = `web_fetch failed: ${failure}${said}`.slice(0, BOARD_LIMITS.text);
      const query = seen.lastQuery ? { searchQuery: seen.lastQuery } : {};
      return { type: 'FAILED_URL', body: { ...fact, url: call.url, failureReason, triedBy: input.workerId, ...query } };
    }
  }
}
