import * as fs from 'node:fs';
import * as path from 'node:path';
import { EnvSchema } from './index';
import { ConfigError } from './errors';

/** The config file a command reads from its working directory when neither `--config` nor SCRATCHPAD_CONFIG names one. */
export const CONFIG_FILE_NAME = 'scratchpad.json';

// Read by @temporalio/envconfig, as the Temporal CLI reads them, so they are not in the schema.
const CONNECTION_KEYS = [
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
];
const GRPC_META_PREFIX = 'TEMPORAL_GRPC_META_';

// A relative path in the file means a place beside the file, wherever the command (or a worker it starts) runs.
const PATH_KEYS = [
  'SCRATCHPAD_HOME',
  'SCRATCHPAD_SANDBOX',
  'SCRATCHPAD_OBSERVATIONS',
  'SCRATCHPAD_MCP_CONFIG',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_CONFIG_FILE',
];
// These may also name a program on PATH or a package: only `./x` and `../x` are paths.
const EXPLICIT_PATH_KEYS = ['SCRATCHPAD_TOOLS', 'SCRATCHPAD_BWRAP_PATH', 'TEMPORAL_CLI_PATH'];

function resolvedPath(key: string, value: string, directory: string): string {
  if (value === '' || path.isAbsolute(value) || value.includes('://')) return value;
  const explicit = value.startsWith('./') || value.startsWith('../');
  return PATH_KEYS.includes(key) || (EXPLICIT_PATH_KEYS.includes(key) && explicit)
    ? path.resolve(directory, value)
    : value;
}

/** True when a config file may set `key`: a variable of the schema or of the Temporal connection. */
export function isConfigKey(key: string): boolean {
  return (
    Object.hasOwn(EnvSchema.shape, key) ||
    CONNECTION_KEYS.includes(key) ||
    (key.startsWith(GRPC_META_PREFIX) && key.length > GRPC_META_PREFIX.length)
  );
}

/** A value as the environment would spell it: strings, numbers and booleans as text, arrays joined with commas. */
function asVariable(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => asVariable(item) !== undefined && !Array.isArray(item))) {
    return value.map((item) => asVariable(item)).join(',');
  }
  return undefined;
}

/** The variables a config file's JSON sets, each checked; a problem is a ConfigError naming `file` and the key. */
export function parseConfigFile(text: string, file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${file}: not JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${file}: expected a JSON object of variable names to values`);
  }
  const variables: Record<string, string> = {};
  for (const [key, raw] of Object.entries(parsed)) {
    if (!isConfigKey(key)) {
      throw new ConfigError(
        `config file ${file}: unknown key "${key}": keys are the environment variables \`scratchpad --help\` lists`,
      );
    }
    const value = asVariable(raw);
    if (value === undefined) {
      throw new ConfigError(`config file ${file}: "${key}" must be a string, number, boolean or array of them`);
    }
    const schema = (EnvSchema.shape as Record<string, (typeof EnvSchema.shape)[keyof typeof EnvSchema.shape]>)[key];
    const checked = schema && value !== '' ? schema.safeParse(value) : undefined;
    if (checked && !checked.success) {
      throw new ConfigError(`config file ${file}: "${key}": ${checked.error.issues[0]?.message ?? 'invalid value'}`);
    }
    variables[key] = resolvedPath(key, value, path.dirname(path.resolve(file)));
  }
  return variables;
}

/** Where the config file is: `--config`, else SCRATCHPAD_CONFIG, else `scratchpad.json` in `cwd` when present. */
export function configFilePath(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): { file: string; required: boolean } | undefined {
  const named = option ?? (env.SCRATCHPAD_CONFIG || undefined);
  if (named !== undefined) return { file: path.resolve(cwd, named), required: true };
  const local = path.join(cwd, CONFIG_FILE_NAME);
  return fs.existsSync(local) ? { file: local, required: false } : undefined;
}

/**
 * Reads the config file and sets each of its variables in `env` that the environment leaves unset (the environment
 * wins), so everything that reads `loadConfig()` later, background workers included, sees them. Resolves to the file
 * read, or undefined when there is none.
 */
export function applyConfigFile(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): string | undefined {
  const found = configFilePath(option, env, cwd);
  if (!found) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(found.file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!found.required && code === 'ENOENT') return undefined;
    if (code === 'ENOENT')
      throw new ConfigError(`config file ${found.file} not found (--config or SCRATCHPAD_CONFIG names it)`);
    throw new ConfigError(`cannot read config file ${found.file}: ${code ?? (error as Error).message}`);
  }
  for (const [key, value] of Object.entries(parseConfigFile(text, found.file))) {
    // Empty variables count as unset everywhere in this configuration, so a file fills them.
    if (env[key] === undefined || env[key] === '') env[key] = value;
  }
  // A process this one starts (a background worker) reads the same file, whatever its working directory.
  env.SCRATCHPAD_CONFIG = found.file;
  return found.file;
}
