import { defineSearchAttributeKey, type SearchAttributeType } from '@temporalio/common';

// Imported by workflow code: keep this module free of Node built-ins.

/** The project's custom search attributes, name → type; registered on every server the project uses. */
export const SEARCH_ATTRIBUTES = {
  AgentId: 'KEYWORD',
  CycleOutcome: 'KEYWORD',
  CycleCount: 'INT',
  LastOutcome: 'KEYWORD',
  ResearchRun: 'KEYWORD',
  AwaitingApproval: 'BOOL',
} as const satisfies Record<string, SearchAttributeType>;

/** Name of one of the project's custom search attributes. */
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** Typed key of the agent's id, for `upsertSearchAttributes` and visibility queries. */
export const agentIdKey = defineSearchAttributeKey('AgentId', SEARCH_ATTRIBUTES.AgentId);

/** Typed key of the outcome of the cycle the agent is in or just ran. */
export const cycleOutcomeKey = defineSearchAttributeKey('CycleOutcome', SEARCH_ATTRIBUTES.CycleOutcome);

/** Typed key of the number of cycles the agent has run. */
export const cycleCountKey = defineSearchAttributeKey('CycleCount', SEARCH_ATTRIBUTES.CycleCount);

/** Typed key of the outcome of the agent's last finished cycle. */
export const lastOutcomeKey = defineSearchAttributeKey('LastOutcome', SEARCH_ATTRIBUTES.LastOutcome);

/** Typed key marking a research supervisor with its run id; its outcome goes in `CycleOutcome`. */
export const researchRunKey = defineSearchAttributeKey('ResearchRun', SEARCH_ATTRIBUTES.ResearchRun);

/** Typed key set while a workflow (an agent, or the cycle itself) waits for a person to decide on a tool call. */
export const awaitingApprovalKey = defineSearchAttributeKey('AwaitingApproval', SEARCH_ATTRIBUTES.AwaitingApproval);
