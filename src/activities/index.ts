import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { type ModelRequest, ModelRequestSchema, type ModelResponse } from '../core/cycle/model';
import { type Observation, type ToolCallInput, ToolCallInputSchema } from '../core/tools/observation';
import type { ObservationStore } from './observations/entry';
import { createObservationRuntime } from './observations/runtime';
import { type ModelProvider, requestFor } from './model/provider';
import { offeredTools } from './model/offered-tools';
import { runObservedTool } from './tools/run-tool';
import { missingArchives } from './tools/scratchpad-read';
import { type CatalogueListing, ToolRegistry } from './tools/registry';
import type { ToolDescriptor } from '../core/tools/descriptor';
import type { ToolOptions } from './tools/types';
import { type VerificationRequest, VerificationRequestSchema, runVerification } from './tools/verification';
import { mirrorEntries } from './research/mirror';
import { boardCallOptions, createResearchActivities } from './research/board';
import { createWakeAgent } from './wake-agent';
import { ModelError, ObservationStoreError, StagedError, ToolError } from '../common/failure-types';
import { parseWorkflowInput } from '../common/workflow-input';
import { streamPublisherFor } from './model/stream-publisher';
import { heartbeating } from './heartbeat';
import { completeForcedCall } from './model/forced-call';
import { type ResolveModel, specOfRequest, withAnsweringSpec, withFailedModel } from './model/model-list';
import type { WorkerModel } from '../common/workflow-types';
import { errorMessage } from '../common/error-message';
import { excerpt } from './model/excerpt';

/** Content the budget moves out of a scratchpad section. */
const ArchiveRequestSchema = z.object({
  agentId: z.string().min(1).max(1000),
  cycleId: z.string().min(1).max(1000),
  section: z.string().min(1).max(100),
  content: z.string().max(1_000_000),
});
export type ArchiveRequest = z.infer<typeof ArchiveRequestSchema>;

/** The cycle whose start collects garbage, and the entries its memory's archive pointers name. */
const GcRequestSchema = z.object({
  agentId: z.string().min(1).max(1000),
  cycleId: z.string().min(1).max(1000),
  archiveIds: z.array(z.string().min(1).max(200)).max(1000),
});
export type GcRequest = z.infer<typeof GcRequestSchema>;

const ToolArgsCheckSchema = z.object({ name: z.string().min(1).max(200), args: z.record(z.string(), z.unknown()) });

export interface ActivityDependencies {
  /** Resolves a model spec (or the default when undefined) to a provider; `createModelResolver` makes one. */
  resolveModel: ResolveModel;
  tools: ToolOptions;
  /** The user's tools from code and MCP servers, besides the built-ins. */
  toolRegistry?: ToolRegistry;
  /** The observation store; an in-process memory store when absent (tests, a single worker process). */
  observations?: ObservationStore;
  /** Observations whose JSON is larger go to the store, a synthetic observation in their place (default 4096). */
  offloadBytes?: number;
  /** Lets `wakeAgent` signal-with-start the agent workflow for schedules. */
  client?: Client;
}

/** The worker's default model for `scratchpad tools`: probed now if it was not yet; undefined without one. */
async function describeModel(
  resolveModel: ActivityDependencies['resolveModel'],
  signal?: AbortSignal,
): Promise<WorkerModel | undefined> {
  let provider: ModelProvider;
  try {
    provider = resolveModel();
  } catch {
    return undefined;
  }
  const { spec } = provider;
  try {
    const protocol = provider.resolveProtocol ? await provider.resolveProtocol(signal) : undefined;
    const { contextTokens } = provider as { contextTokens?: number };
    return { spec, ...(protocol && { protocol }), ...(contextTokens && { contextTokens }) };
  } catch (error) {
    return { spec, problem: excerpt(errorMessage(error), 200) };
  }
}

/** Activities close over their dependencies so tests and the worker inject real or scripted parts. */
export function createActivities(dependencies: ActivityDependencies) {
  const observations = createObservationRuntime(dependencies.observations, dependencies.offloadBytes);
  const registry = dependencies.toolRegistry ?? new ToolRegistry();
  return {
    /**
     * One model call. Retries belong to Temporal: providers never retry on their own. Falling back to the next model
     * of a list is the workflow's, once this call has failed for good (workflows/cycle/model-fallback.ts).
     */
    async callModel(request: ModelRequest): Promise<ModelResponse> {
      const parsed = parseWorkflowInput(ModelRequestSchema(), request, ModelError.BadRequest, 'model request');
      const { model, tools, fallback, stream, ...rest } = parsed;
      const { spec, models } = specOfRequest(dependencies.resolveModel, model, fallback);
      const publisher = streamPublisherFor(stream);
      try {
        const provider = dependencies.resolveModel(spec);
        const response = await heartbeating(async (signal) => {
          const offered = offeredTools(tools, await registry.lookup());
          const sent = requestFor(provider, { ...rest, tools: offered });
          return completeForcedCall(provider, sent, signal, publisher?.text);
        });
        // The stream's text reaches the cycle before the reply does, so no reader sees the end before the words.
        await publisher?.close();
        return withAnsweringSpec(response, spec, models);
      } catch (error) {
        throw withFailedModel(error, spec, models);
      }
    },

    /**
     * One tool call; tool errors come back as `ok: false` observations, not thrown failures. Large observations
     * are offloaded here, so they never enter workflow history (design.md, Offloading).
     */
    async runTool(rawCall: ToolCallInput): Promise<Observation> {
      // The envelope is the workflow's; bad arguments of the model's own come back to it as an `ok: false` observation.
      const call = parseWorkflowInput(ToolCallInputSchema(), rawCall, ToolError.BadInput, 'tool call');
      // What the call's context asks of the tools, as the feature that set it says (a research board's tombstones).
      const added = await boardCallOptions(dependencies.client, call);
      return heartbeating((signal) =>
        runObservedTool(call, { ...dependencies.tools, ...added, signal }, observations, registry),
      );
    },

    /**
     * The tools this worker has (name, source, policy), which a cycle records once at its start: a replay never asks
     * an MCP server. A local activity, so the catalogue is that of the worker running the cycle.
     */
    async listTools(): Promise<CatalogueListing> {
      // A local activity cannot heartbeat; its start-to-close timeout bounds a server that does not start.
      return registry.catalogue(dependencies.tools);
    },

    /**
     * Whether a person's edited arguments suit the tool's schema, which only the worker holds: a local activity the
     * `decide` update runs before it accepts them.
     */
    async checkToolArgs(raw: { name: string; args: unknown }): Promise<{ ok: true } | { ok: false; error: string }> {
      const { name, args } = parseWorkflowInput(ToolArgsCheckSchema, raw, ToolError.BadInput, 'tool arguments check');
      return registry.checkArgs(name, args);
    },

    /** Every tool with its description and schema, for `scratchpad tools`. */
    async describeTools(): Promise<{ tools: ToolDescriptor[]; failures: string[]; model?: WorkerModel }> {
      return heartbeating(async (signal) => {
        const described = await registry.describe(dependencies.tools);
        const model = await describeModel(dependencies.resolveModel, signal);
        return { ...described, ...(model && { model }) };
      });
    },

    /**
     * Deletes expired observation entries; each cycle calls it first. It also names the archive pointers of the
     * cycle's memory whose entries this worker's store does not hold, so a lost archive is seen, not a silent gap.
     */
    async gcObservations(rawRequest?: GcRequest): Promise<{ removed: number; missingArchives: string[] }> {
      const request =
        rawRequest && parseWorkflowInput(GcRequestSchema, rawRequest, ObservationStoreError.BadInput, 'gc request');
      const removed = await observations.store.gc();
      const missing = request ? await missingArchives(observations.store, request, request.archiveIds) : [];
      return { removed, missingArchives: missing };
    },

    /**
     * Moves content out of an agent's scratchpad into the store with no expiry (design.md, Budget and archiving),
     * so the budget never silently drops anything; the pointer left behind names the returned id.
     */
    async archiveContent(rawRequest: ArchiveRequest): Promise<{ id: string }> {
      const request = parseWorkflowInput(ArchiveRequestSchema, rawRequest, ObservationStoreError.BadInput, 'archive');
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

    /** Runs a staged run's verification command confined in the sandbox; large output is offloaded. */
    async runVerification(rawRequest: VerificationRequest) {
      const request = parseWorkflowInput(VerificationRequestSchema, rawRequest, StagedError.BadInput, 'verification');
      return runVerification(request, dependencies.tools.sandboxRoot, observations);
    },

    /** Wakes an agent for its schedule (signal-with-start), which the workflow cannot do itself. */
    wakeAgent: createWakeAgent(dependencies.client),

    ...createResearchActivities(dependencies.client, observations),
    mirrorEntries,
  };
}

export type Activities = ReturnType<typeof createActivities>;
