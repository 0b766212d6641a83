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
  NotConfigured: 'ModelError.NotConfigured',
  ScriptExhausted: 'ModelError.ScriptExhausted',
} as const;
export type ModelErrorType = (typeof ModelError)[keyof typeof ModelError];

export const AgentError = { BadInput: 'AgentError.BadInput' } as const;
export const CycleError = { BadInput: 'CycleError.BadInput' } as const;
export const ScheduleError = { BadInput: 'ScheduleError.BadInput', NoClient: 'ScheduleError.NoClient' } as const;
