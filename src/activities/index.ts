import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { type ModelRequest, ModelRequestSchema, type ModelResponse } from '../core/cycle/model';
import { type Observation, type ToolCallInput } from '../core/tools/observation';
import type { ObservationStore } from './observations/entry';
import { createObservationRuntime } from './observations/runtime';
import type { ModelProvider } from './model/provider';
import { runObservedTool } from './tools/run-tool';
import type { ToolOptions } from './tools/types';
import { type VerificationRequest, runVerification } from './tools/verification';
import { mirrorEntries } from './research/mirror';
import { createResearchActivities, tombstonedUrls } from './research/board';
import { createWakeAgent } from './wake-agent';
import { ModelError } from '../common/failure-types';
import { heartbeating } from './heartbeat';

/** Content the budget moves out of a scratchpad section. */
export interface ArchiveRequest {
  agentId: string;
  cycleId: string;
  section: string;
  content: string;
}

export interface ActivityDependencies {
  /** Resolves a model spec (or the default when undefined) to a provider. */
  resolveModel: (spec?: string) => ModelProvider;
  tools: ToolOptions;
  /** Seed 002's observation store; an in-process memory store when absent (tests, a single worker process). */
  observations?: ObservationStore;
  /** Observations whose JSON is larger go to the store, a synthetic observation in their place (default 4096). */
  offloadBytes?: number;
  /** Lets `wakeAgent` signal-with-start the agent workflow for schedules. */
  client?: Client;
}

/** Activities close over their dependencies so tests and the worker inject real or scripted parts. */
export function createActivities(dependencies: ActivityDependencies) {
  const observations = createObservationRuntime(dependencies.observations, dependencies.offloadBytes);
  return {
    /** One model call. Retries belong to Temporal: providers never retry on their own. */
    async callModel(request: ModelRequest): Promise<ModelResponse> {
      const parsed = ModelRequestSchema().safeParse(request);
      if (!parsed.success) {
        throw ApplicationFailure.nonRetryable(`invalid model request: ${parsed.error.message}`, ModelError.BadRequest);
      }
      const { model, ...rest } = parsed.data;
      const provider = dependencies.resolveModel(model);
      return heartbeating((signal) => provider.complete(rest, signal));
    },

    /**
     * One tool call; tool errors come back as `ok: false` observations, not thrown failures. Large observations
     * are offloaded here, so they never enter workflow history (seed 002).
     */
    async runTool(call: ToolCallInput): Promise<Observation> {
      const denied =
        call.name === 'web_fetch' && call.boardId !== undefined
          ? { fetchDeniedUrls: await tombstonedUrls(dependencies.client, call.boardId) }
          : {};
      return heartbeating((signal) =>
        runObservedTool(call, { ...dependencies.tools, ...denied, signal }, observations),
      );
    },

    /** Deletes expired observation entries; each cycle calls it first (seed 002's gc at the start of a turn). */
    async gcObservations(): Promise<{ removed: number }> {
      return { removed: await observations.store.gc() };
    },

    /**
     * Moves content out of an agent's scratchpad into the store with no expiry (seed 001 `archive_workspace`),
     * so the budget never silently drops anything; the pointer left behind names the returned id.
     */
    async archiveContent(request: ArchiveRequest): Promise<{ id: string }> {
      // A store that stops answering (Redis restarting) must not look like a dead worker.
      const entry = await heartbeating(() =>
        observations.store.put({
          turnId: request.cycleId,
          agentId: request.agentId,
          toolName: `archive:${request.section}`,
          kind: 'text',
          content: request.content,
          summary: request.content.slice(0, 200),
          ttlSeconds: null,
        }),
      );
      return { id: entry.id };
    },

    /** Seed 004: runs a staged run's verification command confined in the sandbox; large output is offloaded. */
    async runVerification(request: VerificationRequest) {
      return runVerification(request, dependencies.tools.sandboxRoot, observations);
    },

    /** Wakes an agent for its schedule (signal-with-start), which the workflow cannot do itself. */
    wakeAgent: createWakeAgent(dependencies.client),

    ...createResearchActivities(dependencies.client, observations),
    mirrorEntries,
  };
}

export type Activities = ReturnType<typeof createActivities>;
