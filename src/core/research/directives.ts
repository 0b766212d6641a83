import { z } from 'zod';
import { BOARD_LIMITS, DIRECTIVE_LIMITS } from './limits';
import { getterOf } from '../shareable';

/**
 * The `directive` signal's argument, read as the USER_DIRECTIVE it appends. The text must fit the board's cap as
 * sent (one cap, the Redis bridge's too): a longer one is refused, not cut. An author left out, null or blank is
 * `user`; `id` names the message, so a second copy of it (another bridge, a retried send) lands nothing.
 */
export const UserDirectiveSchema = getterOf(
  z
    .object({
      text: z
        .string()
        .transform((text) => text.trim())
        .pipe(
          z
            .string()
            .min(1, 'a directive needs some text')
            .max(DIRECTIVE_LIMITS.text, `a directive is at most ${DIRECTIVE_LIMITS.text} characters`),
        ),
      by: z
        .string()
        .max(BOARD_LIMITS.text)
        .nullish()
        .transform((by) => by?.trim().slice(0, BOARD_LIMITS.name) || 'user'),
      id: z
        .string()
        .min(1)
        .max(DIRECTIVE_LIMITS.id)
        .regex(/^[\w.:-]+$/, 'a message id is letters, digits, "_", ".", ":" or "-"')
        .optional(),
    })
    .transform(({ text, by, id }) => ({
      author: { role: 'user' as const, id: by },
      draft: { type: 'USER_DIRECTIVE' as const, body: { text } },
      ...(id !== undefined && { id }),
    })),
);

/** What the intake remembers across a continue-as-new: recent message ids, and when recent directives landed. */
export interface IntakeMemory {
  /** Message ids seen, oldest first, at most {@link DIRECTIVE_LIMITS.rememberedIds}. */
  ids: string[];
  /** Workflow times (ms) of directives accepted in the last minute. */
  times: number[];
}

/** The run as a directive's admission reads it. */
export interface IntakeView {
  now: number;
  /** USER_DIRECTIVE entries on the board. */
  landed: number;
  /** Directives held while the supervisor plans. */
  held: number;
  /** True while the first STRATEGY is not written. */
  planning: boolean;
  /** True once the run has an outcome or its SYNTHESIS. */
  closed: boolean;
  /** True once the board is past its room for directives (core/research/board-budget.ts). */
  full: boolean;
}

/** Admitted; a second copy of a message already seen (dropped quietly); or dropped, with a note for the user. */
export type Admission = { kind: 'admit' } | { kind: 'duplicate' } | { kind: 'drop'; key: string; note: string };

const MINUTE_MS = 60_000;

/**
 * A research run's door for directives: each is admitted or dropped by the rules below, in this order, so every
 * piece of state a directive grows has its cap. The caller appends what is admitted, and notes what is dropped.
 */
export class DirectiveIntake {
  private readonly ids: string[];
  private readonly seen: Set<string>;
  private times: number[];

  constructor(memory?: Partial<IntakeMemory>) {
    this.ids = [...(memory?.ids ?? [])].slice(-DIRECTIVE_LIMITS.rememberedIds);
    this.seen = new Set(this.ids);
    this.times = [...(memory?.times ?? [])].slice(-DIRECTIVE_LIMITS.perMinute);
  }

  admit(id: string | undefined, view: IntakeView): Admission {
    if (id !== undefined) {
      if (this.seen.has(id)) return { kind: 'duplicate' };
      // Remembered whatever happens next: the second copy of a dropped message is not noted twice.
      this.remember(id);
    }
    const drop = (key: string, note: string): Admission => ({ kind: 'drop', key: `directive:${key}`, note });
    if (view.closed) return drop('closed', 'a directive came after the run ended: dropped');
    if (view.landed >= DIRECTIVE_LIMITS.perRun) {
      return drop('cap', `the run holds its ${DIRECTIVE_LIMITS.perRun} directives: later ones are dropped`);
    }
    this.times = this.times.filter((time) => view.now - time < MINUTE_MS);
    if (this.times.length >= DIRECTIVE_LIMITS.perMinute) {
      return drop('rate', `more than ${DIRECTIVE_LIMITS.perMinute} directives in a minute: the extra ones are dropped`);
    }
    if (view.full) return drop('room', 'the board is too large to take more directives: dropped');
    if (view.planning && view.held >= DIRECTIVE_LIMITS.held) {
      return drop('held', `${DIRECTIVE_LIMITS.held} directives wait for the plan already: later ones are dropped`);
    }
    this.times.push(view.now);
    return { kind: 'admit' };
  }

  memory(): IntakeMemory {
    return { ids: [...this.ids], times: [...this.times] };
  }

  private remember(id: string): void {
    this.ids.push(id);
    this.seen.add(id);
    while (this.ids.length > DIRECTIVE_LIMITS.rememberedIds) this.seen.delete(this.ids.shift() as string);
  }
}
