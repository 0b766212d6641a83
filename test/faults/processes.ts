import { type ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

/** A `test/faults/fault-worker.js` process: the project's worker, killed and replaced by the worker trials. */
export class WorkerProcess {
  readonly ready: Promise<void>;
  private output = '';

  private constructor(private readonly child: ChildProcess) {
    const record = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stderr?.on('data', record);
    this.ready = new Promise((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        record(chunk);
        if (this.output.includes('worker ready')) resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}):\n${this.output}`)));
    });
    // Only `ready` reports an early exit; a worker killed on purpose later is no error.
    this.ready.catch(() => undefined);
  }

  /** With `group`, the worker leads a process group of its own, which `killGroup()` ends whole. */
  static start(env: Record<string, string>, options: { group?: boolean } = {}): WorkerProcess {
    const child = spawn(process.execPath, [path.join(__dirname, 'fault-worker.js')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.group ?? false,
    });
    return new WorkerProcess(child);
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the worker printed last, for a failed trial's message. */
  get tail(): string {
    return this.output;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** SIGKILLs the worker's whole process group (started with `group`), and resolves once the worker is gone. */
  async killGroup(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    process.kill(-this.pid, 'SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The loopback HTTP server `web_fetch` calls in every trial, answering after `delayMs`: a tool call that stays in
 * flight long enough to be killed in, and whose request and response tell the suite where the cycle stands.
 */
export class SlowServer {
  private readonly requestWaiters: (() => void)[] = [];
  private readonly responseWaiters: (() => void)[] = [];
  private readonly server: http.Server;
  url = '';

  private constructor(delayMs: number) {
    this.server = http.createServer((request, response) => {
      this.requestWaiters.splice(0).forEach((wake) => wake());
      const timer = setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(`slow answer to ${request.url}`, () => this.responseWaiters.splice(0).forEach((wake) => wake()));
      }, delayMs);
      response.on('close', () => clearTimeout(timer));
    });
  }

  static async start(delayMs: number): Promise<SlowServer> {
    const instance = new SlowServer(delayMs);
    await new Promise<void>((resolve) => instance.server.listen(0, '127.0.0.1', resolve));
    instance.url = `http://127.0.0.1:${(instance.server.address() as AddressInfo).port}/status`;
    return instance;
  }

  /** Resolves at the next request; call before the request can arrive. */
  nextRequest(): Promise<void> {
    return new Promise((resolve) => this.requestWaiters.push(resolve));
  }

  /** Resolves when the next response has been sent. */
  nextResponse(): Promise<void> {
    return new Promise((resolve) => this.responseWaiters.push(resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
