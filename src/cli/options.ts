import { CliError, EXIT } from './errors';
import { MAX_TOOL_PATTERNS, isToolPattern } from '../core/tools/pattern';
import { parseDuration } from '../core/duration';
import { MAX_OUTPUT_TOKENS, MIN_OUTPUT_TOKENS, type OutputCaps } from '../core/cycle/output-caps';
import type { HeartbeatTimeouts } from '../core/cycle/liveness';

// Parsers and choices of option values. Command groups load this module at start-up, so it imports nothing heavy.

/** Output formats of a scratchpad. */
export const FORMATS = ['yaml', 'markdown', 'json'] as const;
/** One of {@link FORMATS}. */
export type Format = (typeof FORMATS)[number];

/** Which of a cycle's scratchpads `show --state` prints. */
export const STATES = ['before', 'after', 'current'] as const;
/** One of {@link STATES}. */
export type StateName = (typeof STATES)[number];

/** The workflows' cap on model calls per cycle (core/cycle.ts, core/agent.ts). */
export const MAX_ITERATIONS = 200;

/** `--format`, checked. */
export function parseFormat(value: string): Format {
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new CliError(`invalid --format "${value}": expected one of ${FORMATS.join(', ')}`, EXIT.usage);
}

/** A parser of a whole number from 1 to `max` for the option `name`. */
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

/** A parser of a count from 0 to 10 for the option `name`. */
export function parseCount(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 10) {
      throw new CliError(`invalid ${name} "${value}": expected an integer from 0 to 10`, EXIT.usage);
    }
    return parsed;
  };
}

/** `--port`: a TCP port. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new CliError(`invalid --port "${value}": expected 1-65535`, EXIT.usage);
  }
  return port;
}

/** `--origin`: an http or https origin. */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`invalid --origin "${value}": expected a URL such as http://localhost:8233`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`invalid --origin "${value}": expected http or https`, EXIT.usage);
  }
  return url.origin;
}

/** Commander accumulator for repeatable options such as `--task`. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A parser of a comma-separated list of tool names and globs (`fs_*,web_fetch,github__*`) for the option `name`. */
export function toolPatternParser(name: string) {
  return (value: string): string[] => {
    const patterns = value
      .split(',')
      .map((pattern) => pattern.trim())
      .filter((pattern) => pattern !== '');
    if (patterns.length === 0 || patterns.length > MAX_TOOL_PATTERNS || !patterns.every(isToolPattern)) {
      throw new CliError(
        `invalid ${name} "${value}": expected up to 100 comma-separated tool names or globs (A-Za-z0-9_- with * and ?), e.g. 'fs_*,web_fetch,github__*'`,
        EXIT.usage,
      );
    }
    return patterns;
  };
}

/** `--tools LIST`: comma-separated tool names and globs, each checked. */
export const parseToolPatterns = toolPatternParser('--tools');

/** A parser of a duration (`30m`, `4h`, `1h30m`, `2d`) for the option `name`, in milliseconds. */
export function durationParser(name: string) {
  return (value: string): number => {
    const milliseconds = parseDuration(value);
    if (milliseconds === undefined) {
      throw new CliError(`invalid ${name} "${value}": expected a duration such as 30m, 4h, 1h30m or 2d`, EXIT.usage);
    }
    return milliseconds;
  };
}

/** `--args JSON`: a JSON object, the edited arguments of an approved call. */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new CliError(`invalid --args: not JSON (${(error as Error).message})`, EXIT.usage);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    throw new CliError(`invalid --args: expected a JSON object of the tool's arguments, got ${kind}`, EXIT.usage);
  }
  return parsed as Record<string, unknown>;
}

/**
 * `--heartbeat-timeout model=4,tool=10,verification=30` (any of the three kinds, in seconds, or one number for all):
 * how long an activity of that kind may go without a heartbeat before another worker takes it over.
 */
export function parseHeartbeatTimeouts(value: string): HeartbeatTimeouts {
  const fail = (why: string) =>
    new CliError(`invalid --heartbeat-timeout "${value}": ${why} (e.g. model=4,tool=10,verification=30)`, EXIT.usage);
  const millis = (text: string): number => {
    const seconds = /^\d{1,3}(\.\d)?$/.test(text) ? Number(text) : NaN;
    if (!(seconds >= 1 && seconds <= 600)) throw fail(`${text} is not from 1 to 600 seconds`);
    return Math.round(seconds * 1000);
  };
  const kinds = ['model', 'tool', 'verification'] as const;
  if (/^[\d.]+$/.test(value.trim())) {
    const all = millis(value.trim());
    return { model: all, tool: all, verification: all };
  }
  const timeouts: HeartbeatTimeouts = {};
  for (const part of value.split(',').map((entry) => entry.trim())) {
    const [kind, seconds, extra] = part.split('=');
    const known = kinds.find((name) => name === kind);
    if (extra !== undefined || seconds === undefined || !known) {
      throw fail(`"${part}" is not KIND=SECONDS with KIND model, tool or verification`);
    }
    timeouts[known] = millis(seconds);
  }
  return timeouts;
}

/**
 * `--max-output respond=512,reflect=768,task=2048` (any of the three phases): output token caps by phase. A bare
 * number sets all three.
 */
export function parseOutputCaps(value: string): OutputCaps {
  const fail = (why: string) =>
    new CliError(`invalid --max-output "${value}": ${why} (e.g. respond=512,reflect=1024,task=2048)`, EXIT.usage);
  const tokens = (text: string): number => {
    const parsed = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
    if (!(parsed >= MIN_OUTPUT_TOKENS && parsed <= MAX_OUTPUT_TOKENS)) {
      throw fail(`${text} is not from ${MIN_OUTPUT_TOKENS} to ${MAX_OUTPUT_TOKENS}`);
    }
    return parsed;
  };
  if (/^\d+$/.test(value.trim())) {
    const all = tokens(value.trim());
    return { respond: all, reflect: all, task: all };
  }
  const caps: OutputCaps = {};
  for (const part of value.split(',').map((entry) => entry.trim())) {
    const [phase, count, extra] = part.split('=');
    if (
      extra !== undefined ||
      count === undefined ||
      !(phase === 'respond' || phase === 'reflect' || phase === 'task')
    ) {
      throw fail(`"${part}" is not PHASE=TOKENS with PHASE respond, reflect or task`);
    }
    caps[phase] = tokens(count);
  }
  return caps;
}

/** `--model` of a command that may run a worker in its process (SCRATCHPAD_IN_PROCESS_WORKER): flags and help. */
export const WORKER_MODEL = [
  '--model <spec>',
  "a chat turn's model (the worker must allow it); else the model of an in-process worker",
] as const;
