import { ApplicationFailure } from '@temporalio/common';
import { type ModelResponse, contentText } from '../../core/cycle/model';
import type { ModelProvider, ProviderRequest, TextListener } from './provider';
import { ScriptedProvider, type ScriptEntry, type ScriptedRequest } from './scripted';
import { ModelError } from '../../common/failure-types';

/**
 * Scripted replies for models that run concurrently (research workers): each conversation is routed by the first
 * line of its first message that names a route (the brief's fact line) to a script of its own, so interleaving
 * never changes who gets which reply.
 */
export class RoutedScriptedProvider implements ModelProvider {
  readonly spec: string;
  private readonly routes = new Map<string, ScriptedProvider>();

  constructor(routes: Record<string, ScriptEntry[]>, name = 'routed') {
    this.spec = `scripted:${name}`;
    for (const [key, script] of Object.entries(routes)) this.routes.set(key, new ScriptedProvider(script, key));
  }

  /** Requests each route has received. */
  requestsFor(key: string): ScriptedRequest[] {
    return this.routes.get(key)?.requests ?? [];
  }

  async complete(request: ProviderRequest, signal?: AbortSignal, onText?: TextListener): Promise<ModelResponse> {
    const first = request.messages[0];
    const lines = first ? contentText(first.content).split('\n') : [];
    // A worker's brief opens its first message; a cycle's prompt carries it in the workspace section.
    const key = lines.find((line) => this.routes.has(line.trim()))?.trim() ?? lines[0] ?? '';
    const route = this.routes.get(key);
    if (!route) {
      throw ApplicationFailure.nonRetryable(`no script for "${key.slice(0, 200)}"`, ModelError.ScriptExhausted);
    }
    return { ...(await route.complete(request, signal, onText)), model: this.spec };
  }
}
