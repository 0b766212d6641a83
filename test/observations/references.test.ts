import type { Observation } from '../../src/core/tools/observation';
import { hasReferences, resolveReferences } from '../../src/activities/observations/references';

const STEPS: Record<number, Observation> = {
  1: { ok: true, result: '{"json": "body"}', url: 'http://127.0.0.1/get', status: 200 },
  2: { ok: true, result: { exit_code: 0, stdout: 'out\n' } },
};
const lookup = async (step: number) => STEPS[step];

describe('{{stepN.field}} references', () => {
  it('finds references anywhere in the arguments', () => {
    expect(hasReferences({ a: ['x', { b: 'see {{step1.content}}' }] })).toBe(true);
    expect(hasReferences({ a: '{step1.content}', b: 3 })).toBe(false);
  });

  it('replaces a whole-string reference by the full value, content being an alias of result', async () => {
    expect(await resolveReferences({ path: 'out.txt', content: '{{step1.content}}' }, lookup)).toEqual({
      ok: true,
      args: { path: 'out.txt', content: '{"json": "body"}' },
    });
    expect(await resolveReferences({ status: '{{ step1.status }}' }, lookup)).toEqual({
      ok: true,
      args: { status: 200 },
    });
  });

  it('interpolates inside text, nested fields and JSON for non-strings', async () => {
    const resolved = await resolveReferences(
      { message: 'got {{step1.status}} from {{step1.url}}: {{step2.result.stdout}}', raw: ['{{step2.result}}'] },
      lookup,
    );
    expect(resolved).toEqual({
      ok: true,
      args: {
        message: 'got 200 from http://127.0.0.1/get: out\n',
        raw: [{ exit_code: 0, stdout: 'out\n' }],
      },
    });
  });

  it('leaves arguments without references unchanged', async () => {
    expect(await resolveReferences({ a: 'plain $1 text', n: 2 }, lookup)).toEqual({
      ok: true,
      args: { a: 'plain $1 text', n: 2 },
    });
  });

  it('names an unknown step or field', async () => {
    expect(await resolveReferences({ content: '{{step7.content}}' }, lookup)).toEqual({
      ok: false,
      error: '{{step7.content}}: no tool observation of step 7 is stored for this cycle',
    });
    expect(await resolveReferences({ content: '{{step1.body}}' }, lookup)).toEqual({
      ok: false,
      error: '{{step1.body}}: step 1 has no field "body" (fields: ok, result, url, status, content)',
    });
    expect(await resolveReferences({ content: '{{step2.result.nope}}' }, lookup)).toMatchObject({
      ok: false,
      error: expect.stringContaining('step 2.result has no field "nope" (fields: exit_code, stdout)'),
    });
  });
});
