import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { EncryptionKey } from '../common/encryption-codec';

export const DEFAULT_TASK_QUEUE = 'scratchpad';

const list = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/** `ID:BASE64` (or a bare `BASE64`, id "default") entries, comma-separated; each key 32 bytes, ids unique. */
const keyList = z.string().transform((value, context): EncryptionKey[] => {
  const keys: EncryptionKey[] = [];
  for (const [index, item] of value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .entries()) {
    const colon = item.indexOf(':');
    const id = colon < 0 ? 'default' : item.slice(0, colon);
    const encoded = colon < 0 ? item : item.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    const problem = !/^[\w.-]{1,64}$/.test(id)
      ? `key ${index + 1}: the id must be 1-64 letters, digits, "_", "." or "-"`
      : !/^[A-Za-z0-9+/]+=*$/.test(encoded) || key.length !== 32
        ? `key ${index + 1} ("${id}"): expected 32 bytes in base64 (openssl rand -base64 32), got ${key.length} bytes`
        : keys.some((known) => known.id === id)
          ? `key id "${id}" appears twice`
          : undefined;
    if (problem) {
      // The key itself is never echoed into an error message.
      context.addIssue({ code: 'custom', message: problem, input: '<redacted>' });
      return z.NEVER;
    }
    keys.push({ id, key: new Uint8Array(key) });
  }
  return keys;
});

const EnvSchema = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:/]+:\d{1,5}$/, 'expected host:port, e.g. localhost:7233')
    .default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_UI_URL: z.url().default('http://localhost:8233'),
  SCRATCHPAD_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  SCRATCHPAD_MODEL: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  SCRATCHPAD_HOME: z.string().min(1).optional(),
  SCRATCHPAD_SANDBOX: z.string().min(1).optional(),
  SCRATCHPAD_SHELL_ALLOW: list.default(['echo', 'date', 'ls', 'cat', 'wc', 'head', 'tail', 'grep', 'pwd', 'uname']),
  SCRATCHPAD_SHELL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  SCRATCHPAD_FETCH_ALLOW: list.default(['localhost', '127.0.0.1']),
  SCRATCHPAD_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Observation store (seed 002): a SQLite file path (default `<home>/observations.db`) or `redis://…`. */
  SCRATCHPAD_OBSERVATIONS: z.string().min(1).optional(),
  /** Observations whose JSON is larger are offloaded to the store. */
  SCRATCHPAD_OFFLOAD_BYTES: z.coerce.number().int().positive().default(4096),
  SCRATCHPAD_ENCRYPTION_KEY: keyList
    .refine((keys) => keys.length <= 1, 'holds one key; list several in SCRATCHPAD_ENCRYPTION_KEYS')
    .optional()
    .describe(
      'Encrypts every payload the client and worker write (AES-256-GCM): one key, `ID:BASE64` or just `BASE64` ' +
        '(id "default"), BASE64 being 32 random bytes (`openssl rand -base64 32`).',
    ),
  SCRATCHPAD_ENCRYPTION_KEYS: keyList
    .optional()
    .describe(
      'Several keys for rotation, `ID1:BASE64,ID2:BASE64`: the first encrypts, every one decrypts the payloads ' +
        'whose metadata names its id. Listed after SCRATCHPAD_ENCRYPTION_KEY when both are set.',
    ),
});

export type Config = z.infer<typeof EnvSchema> & {
  home: string;
  sandbox: string;
  observations: string;
  /** From SCRATCHPAD_ENCRYPTION_KEY then SCRATCHPAD_ENCRYPTION_KEYS; empty when payloads are not encrypted. */
  encryptionKeys: EncryptionKey[];
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The data directory: `SCRATCHPAD_HOME`, else `$XDG_DATA_HOME/durable-scratchpad`. */
export function dataHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCRATCHPAD_HOME) return path.resolve(env.SCRATCHPAD_HOME);
  const base = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'durable-scratchpad');
}

/** Reads and validates configuration from the environment; bad values are named in the error. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(EnvSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = EnvSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration:\n${z.prettifyError(parsed.error)}`);
  }
  const home = dataHome(env);
  const sandbox = path.resolve(parsed.data.SCRATCHPAD_SANDBOX ?? path.join(home, 'sandbox'));
  const observations = parsed.data.SCRATCHPAD_OBSERVATIONS ?? path.join(home, 'observations.db');
  const encryptionKeys = [
    ...(parsed.data.SCRATCHPAD_ENCRYPTION_KEY ?? []),
    ...(parsed.data.SCRATCHPAD_ENCRYPTION_KEYS ?? []),
  ];
  if (new Set(encryptionKeys.map((key) => key.id)).size !== encryptionKeys.length) {
    throw new ConfigError(
      'invalid configuration: SCRATCHPAD_ENCRYPTION_KEY and SCRATCHPAD_ENCRYPTION_KEYS share a key id',
    );
  }
  return { ...parsed.data, home, sandbox, observations, encryptionKeys };
}

export type ModelSpec =
  | { provider: 'anthropic'; model: string }
  | { provider: 'openai'; model: string; baseURL: string }
  | { provider: 'scripted'; path: string };

/**
 * Parses `anthropic:MODEL`, `openai:MODEL@BASE_URL` or `scripted:FILE.jsonl`.
 * The OpenAI model name may itself contain colons (`qwen2.5:7b`).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (provider === 'anthropic' && rest) return { provider, model: rest };
  if (provider === 'scripted' && rest) return { provider, path: path.resolve(rest) };
  if (provider === 'openai') {
    const at = rest.lastIndexOf('@');
    const model = at < 0 ? rest : rest.slice(0, at);
    const baseURL = at < 0 ? 'http://localhost:11434/v1' : rest.slice(at + 1);
    if (model && /^https?:\/\//.test(baseURL)) return { provider, model, baseURL };
  }
  throw new ConfigError(
    `invalid model "${spec}": expected anthropic:MODEL, openai:MODEL@http://HOST:PORT/v1 or scripted:FILE.jsonl`,
  );
}

export const MODEL_HELP =
  'No usable model is configured. Set one of:\n' +
  '  ANTHROPIC_API_KEY=sk-...                              (uses anthropic:claude-sonnet-5-5)\n' +
  '  SCRATCHPAD_MODEL=anthropic:claude-sonnet-5-5          (with ANTHROPIC_API_KEY)\n' +
  '  SCRATCHPAD_MODEL=openai:qwen2.5:7b@http://localhost:11434/v1   (Ollama, llama.cpp, vLLM)\n' +
  '  SCRATCHPAD_MODEL=scripted:path/to/responses.jsonl     (replays recorded responses)\n' +
  'or pass --model with one of those values.';

/** The model spec to use, or a ConfigError that says how to configure one. */
export function resolveModelSpec(config: Config, override?: string): string {
  const spec =
    override ?? config.SCRATCHPAD_MODEL ?? (config.ANTHROPIC_API_KEY ? 'anthropic:claude-sonnet-5-5' : undefined);
  if (!spec) throw new ConfigError(MODEL_HELP);
  const parsed = parseModelSpec(spec);
  if (parsed.provider === 'anthropic' && !config.ANTHROPIC_API_KEY) {
    throw new ConfigError(`model ${spec} needs ANTHROPIC_API_KEY.\n${MODEL_HELP}`);
  }
  return spec;
}
