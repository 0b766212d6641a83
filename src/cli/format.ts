import { renderMarkdown } from '../core/scratchpad/render';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { snapshotYaml } from '../client';
import type { Format } from './options';

/** A scratchpad as YAML (in snapshot key order), Markdown or JSON. */
export function formatScratchpad(state: Scratchpad, format: Format): string {
  if (format === 'markdown') return renderMarkdown(state);
  if (format === 'json') return `${JSON.stringify(state, null, 2)}\n`;
  return snapshotYaml(state);
}

/** Link to a workflow in the Temporal Web UI. */
export function workflowUrl(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
