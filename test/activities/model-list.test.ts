import { createModelResolver } from '../../src/activities/model/registry';
import { ScriptedProvider } from '../../src/activities/model/scripted';
import { ModelError } from '../../src/common/failure-types';
import type { ModelRequest } from '../../src/core/cycle/model';
import { failureOf, runCallModel } from './call-model';

function request(fields: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'cycle', messages: [{ role: 'user', content: 'hello' }], tools: [], toolChoice: 'auto', ...fields };
}

/** A worker whose default is the list `first,second`, and which also serves `scripted:alone`. */
function resolver() {
  const first = new ScriptedProvider(
    [{ error: { type: ModelError.NotFound, message: 'gone', nonRetryable: true } }],
    'first',
  );
  const second = new ScriptedProvider([{ text: 'second answers' }, { text: 'second again' }], 'second');
  const alone = new ScriptedProvider([{ error: { type: ModelError.Overloaded, message: 'busy' } }], 'alone');
  const providers = { 'scripted:first': first, 'scripted:second': second, 'scripted:alone': alone };
  return { resolve: createModelResolver({ defaultSpec: 'scripted:first,scripted:second', providers }), first, second };
}

describe('callModel asks one model of a list: the `fallback`th, counting from 0', () => {
  it('names the model that failed and the size of its list in the failure, for the workflow to ask the next', async () => {
    const { resolve, second } = resolver();
    const failure = await failureOf(runCallModel(resolve, request()));

    expect(failure).toMatchObject({ type: ModelError.NotFound, message: 'gone', nonRetryable: true });
    expect(failure.details).toEqual([{ failedModel: 'scripted:first', models: 2 }]);
    expect(second.requests).toHaveLength(0);
  });

  it("marks the reply with the spec that answered, of the worker's default list or of the request's", async () => {
    const { resolve } = resolver();
    const response = await runCallModel(resolve, request({ fallback: 1 }));
    expect(response).toMatchObject({ text: 'second answers', model: 'scripted:second', spec: 'scripted:second' });

    const named = await runCallModel(resolve, request({ model: 'scripted:alone, scripted:second', fallback: 1 }));
    expect(named).toMatchObject({ text: 'second again', spec: 'scripted:second' });
  });

  it('adds nothing when the list names one model: its reply and failure stay as they were', async () => {
    const { resolve } = resolver();
    const failure = await failureOf(runCallModel(resolve, request({ model: 'scripted:alone' })));
    expect(failure).toMatchObject({ type: ModelError.Overloaded, message: 'busy', nonRetryable: false });
    expect(failure.details ?? []).toEqual([]);
  });

  it('refuses a list naming a model the worker does not allow before asking any, and a malformed list', async () => {
    const { resolve, first } = resolver();
    const refused = await failureOf(runCallModel(resolve, request({ model: 'scripted:first,scripted:elsewhere' })));
    expect(refused.type).toBe(ModelError.NotAllowed);
    expect(refused.message).toMatch(/^model "scripted:elsewhere" is not allowed on this worker/);
    expect(first.requests).toHaveLength(0);

    const malformed = await failureOf(runCallModel(resolve, request({ model: 'scripted:first,,scripted:second' })));
    expect(malformed).toMatchObject({ type: ModelError.BadRequest, nonRetryable: true });
    expect(malformed.message).toBe(
      'invalid model list "scripted:first,,scripted:second": entry 2 of the model list is empty',
    );
    const past = await failureOf(runCallModel(resolve, request({ model: 'scripted:second', fallback: 1 })));
    expect(past.message).toBe('the model list names 1 model(s): there is no model 2');
  });

  it('refuses a malformed default list when the worker is made', () => {
    expect(() => createModelResolver({ defaultSpec: 'scripted:a,scripted:a' })).toThrow(
      'invalid default model list: the model list names scripted:a twice',
    );
  });
});
