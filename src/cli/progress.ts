import type { Client } from '@temporalio/client';
import { type ProgressStep, progressSteps } from '../clients/cycle-progress';
import { totalCost } from '../core/cycle/cost';
import type { CycleResult } from '../core/cycle/input';
import type { Usage } from '../core/cycle/model';

/** How progress is shown: where it goes, whether it may redraw a line in place, and when to stop following. */
export interface FollowOptions {
  /** Writes progress text, whole lines ending in a newline (default: stderr). */
  print?: (text: string) => void;
  /** Stops following (the command is done or interrupted). */
  signal?: AbortSignal;
  /** A waiting indicator while a model call runs, redrawn in place and erased when it ends (default: stderr's). */
  isTTY?: boolean;
  /** Put before every line (nesting: a staged run's stages). */
  indent?: string;
  /** The name shown for the cycle (default: its workflow id). */
  label?: string;
  /** How long the cycle may take to appear (default 10 s): whoever starts it may not have yet. */
  appearWithinMs?: number;
}

/** How a followed workflow ended, as its closing step said. */
export type Closed = Extract<ProgressStep, { kind: 'closed' }>;

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPIN_MS = 100;

/** Lines of progress, with a waiting indicator redrawn in place on a terminal and plain lines elsewhere. */
export class ProgressPrinter {
  private timer?: NodeJS.Timeout;
  private waitingSince = 0;
  private waitingLabel = '';
  private frame = 0;
  readonly print: (text: string) => void;
  readonly isTTY: boolean;

  constructor(options: Pick<FollowOptions, 'print' | 'isTTY'> = {}) {
    this.print = options.print ?? ((text) => process.stderr.write(text));
    this.isTTY = options.isTTY ?? (options.print ? false : process.stderr.isTTY === true);
  }

  /** One line; the waiting indicator, if shown, is erased first and drawn again below it. */
  line(text: string): void {
    this.erase();
    this.print(`${text}\n`);
    if (this.timer) this.draw();
  }

  /** Shows `label` with elapsed seconds until {@link stopWaiting}; on other outputs, one plain line now. */
  wait(label: string): void {
    this.stopWaiting();
    if (!this.isTTY) {
      this.print(`${label}…\n`);
      return;
    }
    this.waitingLabel = label;
    this.waitingSince = Date.now();
    this.draw();
    this.timer = setInterval(() => this.draw(), SPIN_MS);
    this.timer.unref();
  }

  stopWaiting(): void {
    if (!this.timer) return;
    this.erase();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.waitingSince) / 1000);
    this.frame = (this.frame + 1) % FRAMES.length;
    this.print(`\r\x1b[K${this.waitingLabel} ${FRAMES[this.frame]} ${seconds}s`);
  }

  private erase(): void {
    if (this.timer) this.print('\r\x1b[K');
  }
}

/** Input / output tokens of a usage, with cache reads when there were any. */
export function tokensText(usage: Usage | undefined): string {
  if (!usage) return 'tokens unknown';
  const cache = usage.cacheReadTokens > 0 ? `, ${usage.cacheReadTokens} cache read` : '';
  return `${usage.inputTokens} input / ${usage.outputTokens} output tokens${cache}`;
}

/** `cost $0.0012`, or why it is not known. */
export function costText(result: Pick<CycleResult, 'usageByModel'> | undefined): string {
  const cost = totalCost(result?.usageByModel ?? {});
  return cost === null ? 'cost unknown (a model without a known price)' : `cost $${cost.toFixed(4)}`;
}

/** The one-line outcome of a cycle: how it ended, its iterations, tokens and cost. */
export function outcomeLine(label: string, closed: Closed): string {
  const { result } = closed;
  if (!result) return `${label}: ${closed.status}${closed.error ? `: ${closed.error}` : ''}`;
  const error = result.error ? `: ${result.error}` : '';
  return (
    `${label}: ${result.outcome}${error} after ${result.iterations} iteration(s); ` +
    `${tokensText(result.usage)}; ${costText(result)}`
  );
}

/** The line a step prints, or undefined for steps shown otherwise (a model call's wait, the outcome). */
export function stepLine(step: ProgressStep): string | undefined {
  switch (step.kind) {
    case 'model-ended': {
      const seconds = `${(step.ms / 1000).toFixed(1)} s`;
      if (step.error !== undefined) return `model call ${step.call} failed after ${seconds}: ${step.error}`;
      return `model call ${step.call}: ${step.calls ?? 0} call(s), ${tokensText(step.usage)}, ${seconds}`;
    }
    case 'tool':
      return `→ ${step.name} ${step.args}`;
    case 'observation':
      return step.ok ? `  ← ${step.bytes} bytes` : `  ← error: ${step.error ?? 'tool failed'} (${step.bytes} bytes)`;
    case 'update':
      return `scratchpad updated: ${step.sections.join(', ') || 'nothing'}`;
    case 'done':
      return `done: ${step.summary}`;
    case 'directive':
      return `directive received (the model sees it at its next call): ${step.text}`;
    case 'approval-waiting':
      return `waiting for approval: ${step.tool} ${step.args} (call ${step.callId}; scratchpad approve / deny)`;
    case 'approval-decided':
      return `approval decided: call ${step.callId}`;
    case 'verification-started':
      return `verification: \`${step.command}\`…`;
    case 'verification-ended':
      return `verification ${step.passed ? 'passed' : `failed${step.error ? `: ${step.error}` : ''}`}`;
    case 'child-started':
      return `sub-workflow ${step.workflowId} started`;
    case 'child-ended':
      return `sub-workflow ${step.workflowId}: ${step.result?.outcome ?? step.status}`;
    default:
      return undefined;
  }
}

/** Prints one step (the model's wait as a waiting indicator); true when it closed the workflow. */
export function showStep(printer: ProgressPrinter, step: ProgressStep, indent: string, label: string): boolean {
  if (step.kind === 'model-started') {
    printer.wait(`${indent}model call ${step.call} (${step.phase})`);
    return false;
  }
  if (step.kind === 'model-ended') printer.stopWaiting();
  if (step.kind === 'closed') {
    printer.stopWaiting();
    printer.line(`${indent.slice(2)}${outcomeLine(label, step)}`);
    return true;
  }
  const line = stepLine(step);
  if (line !== undefined) printer.line(`${indent}${line}`);
  return false;
}

/**
 * Follows a cycle workflow as it runs, printing each step (model calls, tool calls with short arguments and their
 * observation's size, scratchpad updates, directives, approval waits, done) and a one-line outcome with tokens and
 * cost. The cycle may not exist yet. Resolves when it closes (to how it closed) or when `signal` aborts.
 */
export async function followCycle(
  client: Client,
  workflowId: string,
  options: FollowOptions = {},
): Promise<Closed | undefined> {
  const printer = new ProgressPrinter(options);
  const indent = `${options.indent ?? ''}  `;
  const label = options.label ?? workflowId;
  printer.line(`${indent.slice(2)}${label} running`);
  try {
    const stream = progressSteps(client, workflowId, {
      signal: options.signal,
      appearWithinMs: options.appearWithinMs,
    });
    for await (const step of stream) {
      if (showStep(printer, step, indent, label) && step.kind === 'closed') return step;
    }
    return undefined;
  } finally {
    printer.stopWaiting();
  }
}
