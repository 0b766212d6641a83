import { renderMarkdown } from '../core/render';
import type { Scratchpad } from '../core/scratchpad';
import { snapshotYaml } from '../client/snapshots';
import { CliError, EXIT } from './errors';

export const FORMATS = ['yaml', 'markdown', 'json'] as const;
export type Format = (typeof FORMATS)[number];

export function parseFormat(value: string): Format {
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new CliError(`invalid --format "${value}": expected one of ${FORMATS.join(', ')}`, EXIT.usage);
}

export function formatScratchpad(state: Scratchpad, format: Format): string {
  if (format === 'markdown') return renderMarkdown(state);
  if (format === 'json') return `${JSON.stringify(state, null, 2)}\n`;
  return snapshotYaml(state);
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1)
      throw new CliError(`invalid ${name} "${value}": expected a positive integer`, EXIT.usage);
    return parsed;
  };
}

/** Link to a workflow in the Temporal Web UI. */
export function workflowUrl(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
