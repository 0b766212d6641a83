import fc from 'fast-check';
import {
  MAX_NOTES_CHARS,
  MAX_SECTION_CHARS,
  SECTION_KEY_NAMES,
  UPDATE_KEYS,
  ScratchpadSchema,
  defaultScratchpad,
  getSection,
} from '../../../../src/core/scratchpad/scratchpad';
import { applyArchive, planArchive } from '../../../../src/core/scratchpad/budget';
import { type Scratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { isEmptied, safeApply } from '../../../../src/core/scratchpad/update';

/** What the workflow does after every update: archive what the budget and section caps do not hold. */
function withinBudget(state: Scratchpad, budget: number): Scratchpad {
  let next = state;
  for (const [index, cut] of planArchive(state, budget).entries())
    next = applyArchive(next, cut, `${index}`.padStart(16, '0'));
  return next;
}

const text = fc.string({ maxLength: 1200 });
const value = fc.oneof(
  text,
  text.map((body) => `APPEND: ${body}`),
  fc.constant('CLEAR'),
  fc.array(fc.string({ maxLength: 40 }), { maxLength: 5 }),
  fc.string({ minLength: 5001, maxLength: 5200 }),
  fc.integer(),
  fc.constant(null),
);
const key = fc.oneof(fc.constantFrom(...UPDATE_KEYS), fc.constantFrom('bogus', 'last_updated', 'IDENTITY'));
const update = fc.dictionary(key, value, { maxKeys: 5 });

describe('properties of safeApply', () => {
  it('any sequence of valid and invalid updates keeps every section present and every cap respected', () => {
    fc.assert(
      fc.property(fc.array(update, { maxLength: 40 }), fc.integer({ min: 4000, max: 20_000 }), (updates, budget) => {
        let state = defaultScratchpad();
        for (const args of updates) {
          const before = state;
          const outcome = safeApply(state, args);
          if (!outcome.ok) expect(outcome.state).toBe(before);
          state = withinBudget(outcome.state, budget);
          expect(ScratchpadSchema().safeParse(state).success).toBe(true);
          for (const section of SECTION_KEY_NAMES) {
            expect(typeof getSection(state, section)).toBe('string');
            expect(getSection(state, section).length).toBeLessThanOrEqual(MAX_SECTION_CHARS);
          }
          expect(state.notes.length).toBeLessThanOrEqual(MAX_NOTES_CHARS);
          expect(isEmptied(state)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
