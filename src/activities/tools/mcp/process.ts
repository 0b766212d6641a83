import { headCodePoints } from '../../../core/text';

const STDERR_LINES = 10;
const STDERR_LINE_CHARS = 300;

/** The last lines a server wrote to stderr, to quote when it fails. */
export class StderrTail {
  private lines: string[] = [];
  private partial = '';

  constructor(
    stream: NodeJS.EventEmitter | null,
    private readonly onLine: (line: string) => void,
  ) {
    stream?.on('data', (chunk: Buffer) => this.push(chunk.toString('utf-8')));
  }

  private push(text: string): void {
    const pieces = (this.partial + text).split(/\r?\n/);
    this.partial = headCodePoints(pieces.pop() ?? '', STDERR_LINE_CHARS);
    for (const piece of pieces) {
      const line = headCodePoints(piece.trim(), STDERR_LINE_CHARS);
      if (line === '') continue;
      this.onLine(line);
      this.lines.push(line);
      if (this.lines.length > STDERR_LINES) this.lines.shift();
    }
  }

  /** One line: the kept lines joined with ` | `, or empty. */
  text(): string {
    const partial = this.partial.trim();
    return [...this.lines, ...(partial === '' ? [] : [partial])].slice(-STDERR_LINES).join(' | ');
  }
}

/** Signals a server's process, if it has one and it still runs. */
export function kill(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
