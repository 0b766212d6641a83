import * as fs from 'node:fs';
import type { WorkerOptions } from '@temporalio/worker';
import { bundleCacheDirectory, keepBundle, keptBundlePath } from './bundle-cache';

/** Plugins whose options the kept bundle accounts for: ScratchpadPlugin itself (telemetry's it applies itself). */
const OWN_PLUGINS = new Set(['durable-scratchpad']);

interface Compiler {
  hooks: { assetEmitted: { tap(name: string, run: (file: string, info: { content: Buffer }) => void): void } };
}

/**
 * The workflow bundle of a plugin worker that runs this package's workflows alone: bundled by the SDK at the first
 * start (webpack, seconds of CPU), kept in the bundle cache (bundle-cache.ts) once that worker runs, and taken as is by
 * every later start of the same code, a restart after a crash among them. A worker with workflows, bundler options,
 * converters, workflow interceptors or plugins of the user's own bundles at every start, as before: its bundle
 * depends on more than this package's code.
 */
export class KeptBundle {
  private bundled: string | undefined;

  private constructor(private readonly codePath: string) {}

  /**
   * For a worker with these options (before the plugin's own), whose telemetry adds `workflowModules`; kept in
   * `directory` (the bundle cache when undefined; none when false or not the user's alone).
   */
  static of(
    options: WorkerOptions,
    workflowModules: readonly string[],
    directory?: string | false,
  ): KeptBundle | undefined {
    const converter = options.dataConverter;
    const ownOnly =
      options.workflowBundle === undefined &&
      options.workflowsPath === undefined &&
      options.bundlerOptions === undefined &&
      !options.interceptors?.workflowModules?.length &&
      converter?.payloadConverterPath === undefined &&
      converter?.failureConverterPath === undefined &&
      (options.plugins ?? []).every((plugin) => OWN_PLUGINS.has(plugin.name));
    const folder = ownOnly && directory !== false ? bundleCacheDirectory(directory) : undefined;
    return folder === undefined ? undefined : new KeptBundle(keptBundlePath(folder, workflowModules, 'plugin'));
  }

  /** `options` (the plugin's, complete) running the kept bundle, or bundling as before and keeping what is built. */
  apply(options: WorkerOptions): WorkerOptions {
    if (fs.existsSync(this.codePath)) {
      return {
        ...options,
        workflowBundle: { codePath: this.codePath },
        workflowsPath: undefined,
        bundlerOptions: undefined,
        // In the bundle already: the SDK would warn that it ignores them.
        interceptors: { ...options.interceptors, workflowModules: undefined },
      };
    }
    const capture = {
      apply: (compiler: Compiler) =>
        compiler.hooks.assetEmitted.tap('durable-scratchpad', (_file, { content }) => {
          this.bundled = content.toString('utf8');
        }),
    };
    const webpackConfigHook = (config: { plugins?: unknown[] }) => ({
      ...config,
      plugins: [...(config.plugins ?? []), capture],
    });
    return { ...options, bundlerOptions: { ...options.bundlerOptions, webpackConfigHook } } as WorkerOptions;
  }

  /** Keeps the bundle this worker was created with, if it built one: the SDK has accepted it by now. */
  keep(): void {
    if (this.bundled === undefined) return;
    try {
      keepBundle(this.codePath, this.bundled);
    } catch {
      // A cache is an optimisation: the next start bundles again.
    }
    this.bundled = undefined;
  }
}
