import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../common/error-message';

/** A duration for a message: `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A multi-line message on one line, its lines joined with ` | `. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ').trim();
}

/** An error's message with its cause's (`fetch failed` says why only there), on one line. */
export function explain(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const message = errorMessage(error);
  return oneLine(cause === undefined || cause === null ? message : `${message} (${errorMessage(cause)})`);
}

/** A timeout or a lost connection: the exchange itself failed, not the tool. */
export function isExchangeFailure(error: McpError): boolean {
  return error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed;
}

/** A response the SDK's schema refused (a ZodError): the server broke the protocol for this call. */
export function isMalformed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}
