import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import type { ModelProvider } from '../../src/activities/model/provider';
import type { ModelRequest, ModelResponse } from '../../src/core/cycle/model';

const UNUSED_TOOL_OPTIONS = {
  sandboxRoot: '/nonexistent',
  shellAllow: [],
  shellTimeoutMs: 1,
  fetchAllowHosts: [],
  fetchMaxBytes: 1,
};

/** An activity environment that does not log the failures tests provoke on purpose. */
export function quietEnvironment(): MockActivityEnvironment {
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

/** Runs the real `callModel` activity in a mock activity context. */
export function runCallModel(
  resolveModel: (spec?: string) => ModelProvider,
  request: ModelRequest,
  environment = quietEnvironment(),
): Promise<ModelResponse> {
  return environment.run(createActivities({ resolveModel, tools: UNUSED_TOOL_OPTIONS }).callModel, request);
}

/** The `ApplicationFailure` a call rejects with; fails the test if it resolves or throws something else. */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}
