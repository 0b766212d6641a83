import type { Client } from '@temporalio/client';
import type { CycleRecord, SendResult } from '../core/agent/agent';
import { type TurnEvent, type TurnStream, unshownReply } from '../clients/turn-stream';

/** Where a streamed turn is written: the reply's text, and the lines about it (tool calls, a restart). */
export interface TurnOutput {
  text(text: string): void;
  line(line: string): void;
}

/** Writes a process's reply to stdout and its lines to stderr. */
export const STDIO: TurnOutput = {
  text: (text) => process.stdout.write(text),
  line: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Prints a turn's reply as its stream brings it (design.md, Streaming): text as it comes, each tool call as it starts
 * and ends, a retried model call marked where its second try starts over. The `done` event's reply is the record:
 * what the stream did not bring of it (its text past the stream's cap, say) is printed then. `prefix` opens the reply.
 */
export async function printTurn(stream: TurnStream, output: TurnOutput, prefix = ''): Promise<SendResult> {
  // The text since the last tool call or restart: the reply, if the turn ends now.
  let segment = '';
  let open = false;
  const write = (text: string) => {
    if (text === '') return;
    if (!open) output.text(prefix);
    open = true;
    output.text(text);
  };
  const endLine = () => {
    if (open) output.text('\n');
    open = false;
  };
  for await (const event of stream) {
    if (event.type === 'text') {
      write(event.text);
      segment += event.text;
    } else if (event.type === 'tool' || event.type === 'restart') {
      endLine();
      output.line(aboutEvent(event));
      segment = '';
    } else if (event.type === 'done') {
      write(unshownReply(segment, event.reply));
      endLine();
    } else {
      endLine();
    }
  }
  return stream.result;
}

/** A tool call's or a restart's line. */
function aboutEvent(event: Extract<TurnEvent, { type: 'tool' | 'restart' }>): string {
  if (event.type === 'restart')
    return `  (the model call was tried again, attempt ${event.attempt}: its reply starts over)`;
  if (event.phase === 'start') return `  → ${event.name}${event.args ? ` ${event.args}` : ''}`;
  return `  ← ${event.name} ${event.ok === false ? 'failed' : 'done'}`;
}

/** The one-line change of the memory a cycle made, from its memo (`understanding_known +42, notes +80`). */
export async function memoryLineOf(client: Client, cycleId: string): Promise<string | undefined> {
  const description = await client.workflow
    .getHandle(cycleId)
    .describe()
    .catch(() => undefined);
  const line = (description?.memo as { memory?: unknown } | undefined)?.memory;
  return typeof line === 'string' ? line : undefined;
}

/**
 * What a turn says once its reflect has ended, when its memory changed (`turnNotices` says why when it did not).
 * Undefined for a cycle that did not change it, or a record from before the agent kept whether it did.
 */
export function memoryUpdatedLine(record: Pick<CycleRecord, 'memoryChanged'>, change?: string): string | undefined {
  return record.memoryChanged ? `memory updated${change ? `: ${change}` : ''}` : undefined;
}
