export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
