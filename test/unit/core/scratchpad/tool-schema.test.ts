import { toolInputSchema } from '../../../../src/activities/model/tool-definitions';
import { compileSchema } from '../../../../src/activities/tools/json-schema';
import { UPDATE_KEYS } from '../../../../src/core/scratchpad/scratchpad';
import { validateUpdate } from '../../../../src/core/scratchpad/update';

/** One value of each shape a model might send for a key. */
const VALUES: Record<string, unknown> = {
  text: 'APPEND: a line',
  null: null,
  number: 3,
  strings: ['one', 'two'],
  tasks: [{ task: 'Draft', summary: 'Drafted' }, 'Reviewed'],
  badTask: [{ task: 'Draft' }],
  object: { text: 'x' },
};

describe('update_scratchpad as the model is told it', () => {
  const schema = compileSchema(toolInputSchema('update_scratchpad'));

  it.each(UPDATE_KEYS)('%s: the tool schema takes exactly the values the update check takes', (key) => {
    for (const [shape, value] of Object.entries(VALUES)) {
      const told = schema({ [key]: value }).ok;
      const checked = validateUpdate({ [key]: value }) === null;
      expect({ shape, told }).toEqual({ shape, told: checked });
    }
  });

  it('refuses a key the scratchpad does not have, as the check does', () => {
    expect(schema({ identity: 'x' }).ok).toBe(false);
    expect(validateUpdate({ identity: 'x' })).toContain('unknown key');
  });

  it('stays short: the sections share one plain type', () => {
    expect(JSON.stringify(toolInputSchema('update_scratchpad')).length).toBeLessThan(1200);
  });
});
