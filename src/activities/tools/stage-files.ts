import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Observation } from '../../core/tools/observation';
import type { StageFile } from '../../core/staged/input';
import { errorMessage } from '../../common/error-message';
import { ObservationStoreError } from '../../common/failure-types';
import type { ObservationRuntime } from '../observations/runtime';
import { SandboxError, lexicalRelative, openInSandbox } from './sandbox';

/*
 * Staged runs across hosts (design.md, Staged runs): each worker has its own sandbox, and a stage's writes, its reads
 * and the run's verification may each land on a different one. So what a stage writes also goes to the observation
 * store, which Redis shares between hosts; a read under the run, and verification, first bring the sandbox in line.
 */

/** How long a stage's file stays in the store: well past any staged run's wait for its verification. */
export const STAGE_FILE_TTL_SECONDS = 7 * 24 * 3600;

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

// The newest content a run wrote at a path is the newest entry under this key (step 0): one put per write, in order.
function fileKey(runId: string, relative: string): string {
  return `${runId}/files/${relative}`;
}

/**
 * After a stage's `fs_write`: the content goes to the store under the run, and the observation carries the reference
 * (`content_id`, `sha256`) the stage reports. A store that cannot take it fails the call retryably: the write is
 * idempotent, and a file only this host has would fail verification elsewhere.
 */
export async function recordStageWrite(
  runId: string,
  content: string,
  observation: Observation,
  runtime: ObservationRuntime,
): Promise<Observation> {
  if (!observation.ok || typeof observation.path !== 'string') return observation;
  const digest = sha256(content);
  try {
    const entry = await runtime.store.put({
      turnId: fileKey(runId, observation.path),
      step: 0,
      toolName: 'stage_file',
      kind: 'text',
      content,
      metadata: { path: observation.path, sha256: digest },
      ttlSeconds: STAGE_FILE_TTL_SECONDS,
    });
    return { ...observation, content_id: entry.id, sha256: digest };
  } catch (error) {
    const message = `cannot keep ${observation.path} for the staged run in the observation store: ${errorMessage(error)}`;
    throw ApplicationFailure.retryable(message, ObservationStoreError.Unavailable);
  }
}

/** Before a stage's `fs_read`: the run's newest content of that path, when this sandbox holds something else. */
export async function restoreForRead(
  runId: string,
  userPath: string,
  root: string,
  runtime: ObservationRuntime,
): Promise<void> {
  let relative: string;
  try {
    relative = lexicalRelative(userPath);
  } catch {
    return; // the read itself refuses the path, with the reason
  }
  const entry = await runtime.store.findStep(fileKey(runId, relative), 0);
  const digest = entry?.metadata.sha256;
  if (entry === undefined || typeof digest !== 'string' || (await localDigest(root, relative)) === digest) return;
  const content = await runtime.store.content(entry);
  // One that cannot be written (a directory there now) is left for the read to report.
  if (content !== undefined) await writeInSandbox(root, relative, content).catch(() => undefined);
}

/**
 * Before verification: every file the run's stages wrote, as they left it. Returns what could not be restored (its
 * content gone from the store); a store that does not answer throws, so the activity is retried.
 */
export async function restoreStageFiles(
  files: readonly StageFile[],
  root: string,
  runtime: ObservationRuntime,
): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) {
    if ((await localDigest(root, file.path)) === file.sha256) continue;
    const entry = await runtime.store.info(file.contentId);
    const content = entry && (await runtime.store.content(entry));
    if (content === undefined) problems.push(`${file.path} (its content has left the observation store)`);
    else if (sha256(content) !== file.sha256) problems.push(`${file.path} (the stored content does not match)`);
    else {
      const failed = await writeInSandbox(root, file.path, content).catch(describeWriteError);
      if (failed) problems.push(`${file.path} (${failed})`);
    }
  }
  return problems;
}

// Node's messages name host paths; the model only knows sandbox-relative ones.
function describeWriteError(error: unknown): string {
  if (error instanceof SandboxError) return error.message;
  return `cannot write it: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`;
}

async function localDigest(root: string, relative: string): Promise<string | undefined> {
  let file;
  try {
    file = await openInSandbox(relative, root, 'read');
  } catch {
    return undefined; // missing, or not a plain file: written over below
  }
  try {
    return sha256(await file.handle.readFile());
  } finally {
    await file.handle.close();
  }
}

async function writeInSandbox(root: string, relative: string, content: string | Buffer): Promise<void> {
  const file = await openInSandbox(relative, root, 'write');
  try {
    await file.handle.truncate(0);
    await file.handle.writeFile(content);
  } finally {
    await file.handle.close();
  }
}
