import { renderMarkdown } from '../core/scratchpad/render';
import type { Scratchpad } from '../core/scratchpad/scratchpad';
import { snapshotYaml } from '../clients/snapshots';
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

export function parsePositiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    // Digits only: Number() would also take 1e3, 0x10 and " 7 ".
    const parsed = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (!(parsed >= 1 && parsed <= max)) {
      const range = max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `a whole number from 1 to ${max}`;
      throw new CliError(`invalid ${name} "${value}": expected ${range}`, EXIT.usage);
    }
    return parsed;
  };
}

/** The workflows' cap on model calls per cycle (core/cycle.ts, core/agent.ts). */
export const MAX_ITERATIONS = 200;

/** Link to a workflow in the Temporal Web UI. */
export function workflowUrl(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
