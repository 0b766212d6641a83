import { type Author, AuthorSchema, type Draft, DraftSchema } from '../../core/research/board';
import { usageReportRefusal } from '../../core/research/usage';
import type { WriteRequest } from '../../common/messages/research';

/** A refused write: the update fails with this, and the board is unchanged. */
export class RefusedWrite extends Error {
  override readonly name = 'RefusedWrite';
}

/**
 * A `write` request read as the board's author and draft, or a refusal naming why. The supervisor's own entries
 * never come through here, so a request claiming its role is forged; a worker must be one of the run's running
 * workers and present the capability token the supervisor gave it (`tokenOf`; workers started before tokens have
 * none), and usage rides only a worker's write, bounded (core/research/usage.ts).
 */
export function parseWriteRequest(
  request: WriteRequest,
  isRunningWorker: (id: string) => boolean,
  tokenOf: (id: string) => string | undefined = () => undefined,
): { author: Author; draft: Draft } {
  const author = AuthorSchema().safeParse(request?.author);
  if (!author.success) throw new RefusedWrite(`invalid author: ${author.error.issues[0]?.message ?? 'malformed'}`);
  const type = String((request.draft as { type?: unknown } | undefined)?.type).slice(0, 40);
  const { role, id } = author.data;
  if (role === 'supervisor') {
    throw new RefusedWrite(
      `supervisor ${id} may not write ${type}: [origin] the supervisor writes only from inside its run`,
    );
  }
  if (role === 'worker' && !isRunningWorker(id)) {
    throw new RefusedWrite(`worker ${id} may not write ${type}: [origin] not a running worker of this run`);
  }
  const expected = role === 'worker' ? tokenOf(id) : undefined;
  if (expected !== undefined && request.token !== expected) {
    // The refusal never says more than whether a token came: nothing in it helps guess one.
    const presented = typeof request.token === 'string' ? 'a token that is not its own' : 'no capability token';
    throw new RefusedWrite(`worker ${id} may not write ${type}: [token] the write presented ${presented}`);
  }
  const draft = DraftSchema().safeParse(request.draft);
  if (!draft.success) {
    const issue = draft.error.issues[0];
    throw new RefusedWrite(`invalid ${type} entry: ${issue?.path.join('.')} ${issue?.message ?? ''}`.trim());
  }
  const usage = request.usageByModel;
  if (usage !== undefined) {
    const refusal = role === 'worker' ? usageReportRefusal(usage) : 'only a worker reports usage, by model';
    if (refusal) throw new RefusedWrite(`invalid usage on a ${role}'s ${type} write: ${refusal}`);
  }
  return { author: author.data, draft: draft.data as Draft };
}
