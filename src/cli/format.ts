import { renderMarkdown } from '../core/scratchpad/render';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { snapshotYaml } from '../clients/snapshots';
import type { Format } from './options';

/** A scratchpad as YAML (in snapshot key order), Markdown or JSON. */
export function formatScratchpad(state: Scratchpad, format: Format): string {
  if (format === 'markdown') return renderMarkdown(state);
  if (format === 'json') return `${JSON.stringify(state, null, 2)}\n`;
  return snapshotYaml(state);
}

/**
 * The Web UI's base URL: TEMPORAL_UI_URL when set; else, for a local server, the port scratchpad gives a dev server's
 * UI (the server's port + 1000), so a link to a server `up` started on another port still opens.
 */
export function webUiUrl(config: { TEMPORAL_UI_URL: string; TEMPORAL_ADDRESS: string }): string {
  if (process.env.TEMPORAL_UI_URL) return config.TEMPORAL_UI_URL;
  const found = /^(localhost|127\.0\.0\.1|\[::1\]):(\d+)$/.exec(config.TEMPORAL_ADDRESS);
  const port = found ? Number(found[2]) : NaN;
  return port >= 1024 && port + 1000 <= 65535 ? `http://${found![1]}:${port + 1000}` : config.TEMPORAL_UI_URL;
}

/** Link to a workflow in the Temporal Web UI. */
export function workflowUrl(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
