import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, loadTemporalSettings, type TemporalConnectionOptions } from './temporal';

export { describeConnection, type TemporalConnectionOptions } from './temporal';
import type { EncryptionKey } from '../common/encryption-codec';
import { keyList } from './encryption-keys';
import { ConfigError } from './errors';
import { MODEL_HELP, parseModelList } from './model-spec';
import { modelEnv } from './model-env';
import { deploymentEnv } from './deployment';

export { ConfigError } from './errors';
export { type WorkerBuild, workerBuild, workerBuildFromEnv } from './deployment';
export {
  MODEL_HELP,
  type ModelSpec,
  type OpenAIProtocol,
  type OpenAIProtocolChoice,
  WORKER_MODEL_HELP,
  parseModelList,
  parseModelSpec,
} from './model-spec';
export { MODEL_WILDCARDS, isModelAllowed, modelAllowProblem } from './model-allow';

export const DEFAULT_TASK_QUEUE = 'scratchpad';

const list = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/** Log levels of the worker's logger, quietest last. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** Every environment variable the project reads; `scratchpad --help` lists them from these descriptions. */
export const EnvSchema = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:/]+:\d{1,5}$/, 'expected host:port, e.g. localhost:7233')
    .default(DEFAULT_ADDRESS)
    .describe('Temporal frontend, host:port'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_NAMESPACE).describe('Temporal namespace'),
  TEMPORAL_UI_URL: z.url().default('http://localhost:8233').describe('Web UI base URL, for links'),
  TEMPORAL_CLI_PATH: z
    .string()
    .min(1)
    .optional()
    .describe('the temporal CLI binary that runs the dev server (else PATH, then a cached download)'),
  SCRATCHPAD_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE).describe('task queue of workers and agents'),
  ...deploymentEnv,
  ...modelEnv(list),
  SCRATCHPAD_HOME: z
    .string()
    .min(1)
    .optional()
    .describe('data directory (default $XDG_DATA_HOME/durable-scratchpad or ~/.local/share/durable-scratchpad)'),
  SCRATCHPAD_SANDBOX: z
    .string()
    .min(1)
    .optional()
    .describe('root directory the tools may touch (default <data dir>/sandbox)'),
  SCRATCHPAD_SHELL_ALLOW: list
    .default(['echo', 'date', 'ls', 'cat', 'wc', 'head', 'tail', 'grep', 'pwd', 'uname'])
    .describe('programs the shell tool may run, comma-separated'),
  SCRATCHPAD_SHELL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('longest a shell command may run, in milliseconds'),
  SCRATCHPAD_SHELL_UNCONFINED: z
    .enum(['true', 'false', '1', '0'])
    .transform((value) => value === 'true' || value === '1')
    .default(false)
    .describe(
      'true: where bubblewrap cannot run, `shell` runs with an argument guard only (no OS sandbox) instead of refusing',
    ),
  SCRATCHPAD_BWRAP_PATH: z
    .string()
    .min(1)
    .optional()
    .describe('bubblewrap executable that confines `shell` and verification commands (default: bwrap on PATH)'),
  SCRATCHPAD_FETCH_ALLOW: list
    .default([])
    .describe('hosts `web_fetch` may reach: exact names, *.example.com, or * for any public address; empty denies all'),
  SCRATCHPAD_FETCH_ALLOW_PRIVATE: list
    .pipe(z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'expected CIDR ranges, e.g. 127.0.0.1/32,10.0.0.0/8')))
    .default([])
    .describe('CIDR ranges of loopback, private, link-local or metadata addresses `web_fetch` may reach'),
  SCRATCHPAD_FETCH_PORTS: list
    .transform((ports) => ports.map(Number))
    .pipe(z.array(z.number().int().min(1).max(65535)))
    .default([80, 443])
    .describe('ports `web_fetch` may connect to'),
  SCRATCHPAD_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe('most bytes web_fetch reads of one response'),
  SCRATCHPAD_FS_WRITE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe('largest content `fs_write` accepts, in bytes'),
  SCRATCHPAD_OBSERVATIONS: z
    .string()
    .min(1)
    .optional()
    .describe('observation store: a SQLite file (default <data dir>/observations.db) or redis://HOST:PORT'),
  SCRATCHPAD_OFFLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4096)
    .describe('observations whose JSON is larger go to the observation store'),
  SCRATCHPAD_LOG_LEVEL: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(LOG_LEVELS))
    .default('WARN')
    .describe(`worker log level: ${LOG_LEVELS.join(', ')}`),
  SCRATCHPAD_CODEC_TOKEN: z
    .string()
    .optional()
    .describe('the token `codec-server` requires of every request (16+ of A-Za-z0-9._~-; else one is made at start)'),
  SCRATCHPAD_IN_PROCESS_WORKER: z.stringbool().default(false).describe('true: a command finding no worker runs one'),
  SCRATCHPAD_TOOLS: z
    .string()
    .min(1)
    .optional()
    .describe('a module (CommonJS or ESM) whose default export is an array of tools made with defineTool'),
  SCRATCHPAD_MCP_CONFIG: z
    .string()
    .min(1)
    .optional()
    .describe('MCP servers whose tools the agents get: a JSON file in the mcpServers shape (stdio and HTTP)'),
  SCRATCHPAD_APPROVE: list.default([]).describe('tools whose calls wait for a person to approve, e.g. shell,fs_*'),
  SCRATCHPAD_SEARCH_URL: z
    .url()
    .optional()
    .describe('SearXNG-compatible JSON search endpoint for web_search, e.g. http://localhost:8888/search'),
  SCRATCHPAD_BOARD: z
    .string()
    .regex(/^rediss?:\/\//, 'expected redis://…')
    .optional()
    .describe('research board mirror, redis://HOST:PORT: accepted entries are pushed to scratchpad:{runId}'),
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
  /** Everything needed to connect (address, TLS, API key, gRPC metadata); TEMPORAL_ADDRESS mirrors its address. */
  temporal: TemporalConnectionOptions;
  /** From SCRATCHPAD_ENCRYPTION_KEY then SCRATCHPAD_ENCRYPTION_KEYS; empty when payloads are not encrypted. */
  encryptionKeys: EncryptionKey[];
};

/** The data directory: `SCRATCHPAD_HOME`, else `$XDG_DATA_HOME/durable-scratchpad`. */
export function dataHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCRATCHPAD_HOME) return path.resolve(env.SCRATCHPAD_HOME);
  const base = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'durable-scratchpad');
}

/** The observation store's spec: `SCRATCHPAD_OBSERVATIONS`, else the data directory's SQLite file. */
export function observationsSpec(env: NodeJS.ProcessEnv = process.env): string {
  return env.SCRATCHPAD_OBSERVATIONS || path.join(dataHome(env), 'observations.db');
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
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${issues.join('; ')}`);
  }
  let temporal;
  try {
    temporal = loadTemporalSettings(env);
  } catch (error) {
    throw new ConfigError(`invalid Temporal connection settings: ${(error as Error).message}`);
  }
  const address = EnvSchema.shape.TEMPORAL_ADDRESS.safeParse(temporal.address);
  if (!address.success) throw new ConfigError(`invalid Temporal address "${temporal.address}": expected host:port`);
  const home = dataHome(env);
  const sandbox = path.resolve(parsed.data.SCRATCHPAD_SANDBOX ?? path.join(home, 'sandbox'));
  const observations = observationsSpec(env);
  const encryptionKeys = [
    ...(parsed.data.SCRATCHPAD_ENCRYPTION_KEY ?? []),
    ...(parsed.data.SCRATCHPAD_ENCRYPTION_KEYS ?? []),
  ];
  if (new Set(encryptionKeys.map((key) => key.id)).size !== encryptionKeys.length) {
    throw new ConfigError(
      'invalid configuration: SCRATCHPAD_ENCRYPTION_KEY and SCRATCHPAD_ENCRYPTION_KEYS share a key id',
    );
  }
  return {
    ...parsed.data,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    temporal: temporal.connection,
    home,
    sandbox,
    observations,
    encryptionKeys,
  };
}

/** The model spec (or list of specs) to use, or a ConfigError that says how to configure one. */
export function resolveModelSpec(config: Config, override?: string): string {
  const spec =
    override ?? config.SCRATCHPAD_MODEL ?? (config.ANTHROPIC_API_KEY ? 'anthropic:claude-sonnet-5-5' : undefined);
  if (!spec) throw new ConfigError(MODEL_HELP);
  const parsed = parseModelList(spec);
  if (parsed.some((model) => model.provider === 'anthropic') && !config.ANTHROPIC_API_KEY) {
    throw new ConfigError(`model ${spec} needs ANTHROPIC_API_KEY.\n${MODEL_HELP}`);
  }
  return spec;
}
