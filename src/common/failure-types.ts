/**
 * Failure types (`Domain.Reason`) the project's `ApplicationFailure`s carry: activity retry policies, tests and
 * the CLI match on these strings, so they are spelled once, here.
 */
export const ModelError = {
  BadRequest: 'ModelError.BadRequest',
  Auth: 'ModelError.Auth',
  NotFound: 'ModelError.NotFound',
  Timeout: 'ModelError.Timeout',
  Conflict: 'ModelError.Conflict',
  RateLimit: 'ModelError.RateLimit',
  Overloaded: 'ModelError.Overloaded',
  Server: 'ModelError.Server',
  Connection: 'ModelError.Connection',
  Unknown: 'ModelError.Unknown',
  /** The provider's `x-should-retry: true` on a status that alone would not be retried. */
  RetryRequested: 'ModelError.RetryRequested',
  BadResponse: 'ModelError.BadResponse',
  /** The prompt does not fit the model's context window (the server refused it, or the worker saw it would). */
  ContextExceeded: 'ModelError.ContextExceeded',
  NotConfigured: 'ModelError.NotConfigured',
  /** A workflow named a model spec the worker's configuration does not allow (SCRATCHPAD_MODELS). */
  NotAllowed: 'ModelError.NotAllowed',
  ScriptExhausted: 'ModelError.ScriptExhausted',
  /** Every model of a fallback list failed for good; the message names each with its failure. */
  AllFailed: 'ModelError.AllFailed',
} as const;
export type ModelErrorType = (typeof ModelError)[keyof typeof ModelError];

export const AgentError = { BadInput: 'AgentError.BadInput' } as const;
export const CycleError = { BadInput: 'CycleError.BadInput' } as const;
export const ScheduleError = { BadInput: 'ScheduleError.BadInput', NoClient: 'ScheduleError.NoClient' } as const;
export const StagedError = { BadInput: 'StagedError.BadInput' } as const;
/** `runTool`'s call: the workflow's envelope around the model's arguments, which go back to the model when bad. */
export const ToolError = { BadInput: 'ToolError.BadInput' } as const;
export const ObservationStoreError = {
  BadInput: 'ObservationStore.BadInput',
  /** A large observation could not be stored: retried, since it cannot go back to the workflow unstored. */
  Unavailable: 'ObservationStore.Unavailable',
} as const;
export const ResearchError = {
  BadInput: 'Research.BadInput',
  /** The supervisor's own entry broke the board's rules. */
  RefusedWrite: 'Research.RefusedWrite',
  NoClient: 'Research.NoClient',
  /** The board could not be read before a fetch: retried. */
  Board: 'Research.Board',
} as const;
