import { EnvSchema } from '../config';

function defaultOf(schema: { def: { type: string; defaultValue?: unknown } }): string | undefined {
  if (schema.def.type !== 'default') return undefined;
  const value = schema.def.defaultValue;
  if (Array.isArray(value)) return value.length > 0 ? value.join(',') : 'empty';
  return String(value);
}

// Read by @temporalio/envconfig, as the Temporal CLI reads them, so they are not in the schema.
const CONNECTION_HELP = `  TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_CLIENT_CERT_PATH,
  TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE
      as for the Temporal CLI (temporal.toml profiles; variables override the profile)
`;

// Why the variable exists, which its one-line description cannot say.
const WORKER_HELP = `  A command that needs a worker uses one polling its task queue (\`scratchpad up\` starts one in the background);
  SCRATCHPAD_IN_PROCESS_WORKER=true lets it run its own instead: for scripts and tests on a task queue of their own
`;

/** The `Environment:` section of `scratchpad --help`, one line per variable of the config schema. */
export function environmentHelp(): string {
  const entries = Object.entries(EnvSchema.shape);
  const width = Math.max(...entries.map(([name]) => name.length)) + 2;
  const lines = entries.map(([name, schema]) => {
    const fallback = defaultOf(schema);
    const description = `${schema.description ?? ''}${fallback === undefined ? '' : ` (default ${fallback})`}`;
    return `  ${name.padEnd(width)}${description}`;
  });
  return `\nEnvironment:\n${lines.join('\n')}\n${CONNECTION_HELP}${WORKER_HELP}`;
}
