import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import * as path from 'node:path';
import type { CliRun } from './cli';

/*
 * `scratchpad` commands run in the test's own process: the compiled CLI's `main` with an environment, stdout and
 * stderr of the call's own, as a spawned command has. A spawned command costs about 0.5 s of CPU to load Node and
 * the client; here the file loads the CLI once and a command then costs milliseconds. What only a process shows is
 * kept: a command that leaves a socket or a referenced timer behind (a process that would not exit) fails the call.
 * Only commands that talk to the server as a client run here: see `runsInProcess` in cli.ts.
 */

interface Call {
  env: Record<string, string>;
  stdout: string[];
  stderr: string[];
  /** Handles the command opened and has not closed, by async id. */
  handles: Map<number, { type: string; resource: unknown }>;
}

const calls = new AsyncLocalStorage<Call>();
/** Handles that keep a process alive; promises and one-shot requests do not. */
const HANDLE_TYPES = new Set([
  ...['TCPWRAP', 'TCPCONNECTWRAP', 'TCPSERVERWRAP', 'PIPEWRAP', 'PIPESERVERWRAP', 'UDPWRAP', 'PROCESSWRAP'],
  ...['WORKER', 'FSEVENTWRAP', 'STATWATCHER', 'Timeout', 'Immediate'],
]);
const owners = new Map<number, Call>();
const hook = createHook({
  init(asyncId, type, _trigger, resource) {
    const call = calls.getStore();
    if (!call || !HANDLE_TYPES.has(type)) return;
    call.handles.set(asyncId, { type, resource });
    owners.set(asyncId, call);
  },
  destroy(asyncId) {
    owners.get(asyncId)?.handles.delete(asyncId);
    owners.delete(asyncId);
  },
});

type Main = (argv: string[]) => Promise<number>;
/** On each standard stream: where the running call's output goes, if a call of the current test file runs. */
const CAPTURE = Symbol.for('durable-scratchpad.test.cli-capture');
let loaded: Main | undefined;

/** The call's own environment and output, as process.env and the standard streams, while it runs. */
function install(): Main {
  if (loaded) return loaded;
  const shared = process.env;
  const own = () => calls.getStore()?.env;
  process.env = new Proxy(shared, {
    get: (target, key) => (own() && typeof key === 'string' ? own()![key] : Reflect.get(target, key)),
    set: (target, key, value) =>
      own() && typeof key === 'string' ? ((own()![key] = String(value)), true) : Reflect.set(target, key, value),
    has: (target, key) => (own() ? key in own()! : Reflect.has(target, key)),
    deleteProperty: (target, key) =>
      own() && typeof key === 'string' ? delete own()![key] : Reflect.deleteProperty(target, key),
    ownKeys: (target) => (own() ? Reflect.ownKeys(own()!) : Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (target, key) => {
      const env = own();
      if (!env) return Reflect.getOwnPropertyDescriptor(target, key);
      return typeof key === 'string' && key in env
        ? { value: env[key], writable: true, enumerable: true, configurable: true }
        : undefined;
    },
  });
  for (const name of ['stdout', 'stderr'] as const) {
    // The streams outlive the test file (a jest worker runs many): wrapped once, they ask the current file's calls.
    const stream = process[name] as NodeJS.WriteStream & { [CAPTURE]?: () => string[] | undefined };
    if (!stream[CAPTURE]) {
      const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        const chunks = stream[CAPTURE]?.();
        if (!chunks) return write(chunk, ...rest);
        chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
        const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
        if (done) process.nextTick(done);
        return true;
      }) as typeof stream.write;
      // A spawned command's streams are pipes: no terminal, whatever runs the tests.
      const tty = Object.getOwnPropertyDescriptor(stream, 'isTTY');
      Object.defineProperty(stream, 'isTTY', {
        configurable: true,
        get: () => (stream[CAPTURE]?.() ? undefined : (tty?.get?.call(stream) ?? tty?.value)),
      });
    }
    stream[CAPTURE] = () => calls.getStore()?.[name];
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled CLI, as bin/scratchpad.js loads it
  loaded = (require(path.resolve(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js')) as { main: Main }).main;
  return loaded;
}

/** Handles of `call` still open and keeping a process alive (a timer unreferenced would not). */
function holding(call: Call): string[] {
  return [...call.handles.values()]
    .filter(({ resource }) => (resource as { hasRef?: () => boolean }).hasRef?.() ?? true)
    .map(({ type }) => type);
}

let running = 0;

/** Runs `scratchpad ARGS` in this process with exactly `env`; see the file's comment. */
export async function runInProcess(args: string[], env: Record<string, string>, timeoutMs: number): Promise<CliRun> {
  const main = install();
  const call: Call = { env: { ...env }, stdout: [], stderr: [], handles: new Map() };
  if (running++ === 0) hook.enable();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`scratchpad ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${call.stderr.join('')}`)),
        timeoutMs,
      );
    });
    const code = await Promise.race([calls.run(call, () => main(['node', 'scratchpad', ...args])), timedOut]);
    // A closed connection lets go of its socket a moment later; a process would wait for it, then exit.
    const deadline = Date.now() + 5_000;
    while (holding(call).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const open = holding(call);
    if (open.length > 0) {
      throw new Error(
        `scratchpad ${args.join(' ')} finished (exit ${code}) but left ${open.join(', ')} open: ` +
          `its process would not exit.\n${call.stderr.join('')}`,
      );
    }
    return { code, stdout: call.stdout.join(''), stderr: call.stderr.join('') };
  } finally {
    clearTimeout(timer);
    if (--running === 0) hook.disable();
  }
}
