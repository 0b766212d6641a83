import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from './paths';

interface Manifest {
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * The OpenTelemetry packages are optional peers too, but loaded only when telemetry is on, which then names them if
 * they are missing (src/telemetry/index.ts): a worker without tracing does without them.
 */
function isTelemetryPackage(name: string): boolean {
  return name.startsWith('@opentelemetry/') || name === '@temporalio/interceptors-opentelemetry';
}

/**
 * What only a worker loads (the Temporal worker with its native bridge and bundler, SQLite, Redis, MCP, RE2, the model
 * SDKs), as `name@range`: the package's optional peer dependencies but telemetry's, so `npm install
 * durable-scratchpad` stays a light client and a worker's host installs them beside it.
 */
export function workerDependencies(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as Manifest;
  return Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([name, meta]) => meta.optional === true && !isTelemetryPackage(name))
    .map(([name]) => `${name}@${manifest.peerDependencies?.[name] ?? '*'}`);
}

/** `@scope/name@range` → `@scope/name`. */
function nameOf(dependency: string): string {
  return dependency.slice(0, dependency.lastIndexOf('@'));
}

// Looked up as folders: a package whose exports map has no `.` or `./package.json` entry cannot be require.resolve'd.
function isInstalled(name: string): boolean {
  const folders = require.resolve.paths(name) ?? [];
  return folders.some((folder) => fs.existsSync(path.join(folder, name, 'package.json')));
}

/** The worker dependencies this install lacks, as `name@range`. */
export function missingWorkerDependencies(): string[] {
  return workerDependencies().filter((dependency) => !isInstalled(nameOf(dependency)));
}

/** The one line that says what to install: the missing packages, each at the range this package wants. */
export function workerDependencyMessage(missing: readonly string[]): string {
  const quoted = missing.map((dependency) => (/[\^~*<>| ]/.test(dependency) ? `'${dependency}'` : dependency));
  return (
    `running a worker needs packages this install lacks (durable-scratchpad installs as a client only): ` +
    `npm install ${quoted.join(' ')}`
  );
}

/** Throws the install line when any worker dependency is missing; the worker entry points call it first. */
export function requireWorkerDependencies(): void {
  const missing = missingWorkerDependencies();
  // Coded as Node codes a failed require, so whoever recognises that recognises this.
  if (missing.length > 0)
    throw Object.assign(new Error(workerDependencyMessage(missing)), { code: 'MODULE_NOT_FOUND' });
}

/** The install line, when `error` is a failed `require` of a worker dependency (a command that runs a worker). */
export function workerDependencyProblem(error: unknown): string | undefined {
  if ((error as { code?: unknown } | undefined)?.code !== 'MODULE_NOT_FOUND') return undefined;
  const missing = missingWorkerDependencies();
  return missing.length > 0 ? workerDependencyMessage(missing) : undefined;
}
