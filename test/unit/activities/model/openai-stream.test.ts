import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { MAX_STREAMED_CHARS, gatherCompletion } from '../../../../src/activities/model/openai-stream';

type Delta = ChatCompletionChunk.Choice.Delta;

function chunk(delta: Delta, finish: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 7,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

async function* from(chunks: ChatCompletionChunk[]): AsyncIterable<ChatCompletionChunk> {
  yield* chunks;
}

describe('a streamed chat completion gathered', () => {
  it('joins text deltas, keeps the finish reason and the usage of the last chunk', async () => {
    const usage = { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 };
    const completion = await gatherCompletion(
      from([
        chunk({ role: 'assistant' }),
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo' }),
        chunk({}, 'length'),
        { ...chunk({}), choices: [], usage },
      ]),
      'openai:m@http://x/v1',
    );
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Hello' }, finish_reason: 'length' });
    expect(completion.usage).toEqual(usage);
    expect(completion).toMatchObject({ id: 'c1', model: 'm', created: 7 });
  });

  it('joins each tool call’s arguments by index, however the pieces interleave', async () => {
    const completion = await gatherCompletion(
      from([
        chunk({
          tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'echo', arguments: '{"mes' } }],
        }),
        chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'done', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'sage":"hi"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"summary":"ok"}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
      'spec',
    );
    const message = completion.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'echo', arguments: '{"message":"hi"}' } },
      { id: 'b', type: 'function', function: { name: 'done', arguments: '{"summary":"ok"}' } },
    ]);
  });

  it('keeps no finish reason when the stream ended without one, and no choice when nothing came', async () => {
    const cut = await gatherCompletion(from([chunk({ content: 'half a rep' })]), 'spec');
    expect(cut.choices[0]!.finish_reason).toBeNull();
    expect((await gatherCompletion(from([]), 'spec')).choices).toEqual([]);
  });

  it('refuses a reply that streams past its size cap', async () => {
    const piece = 'x'.repeat(1_000_000);
    const endless = from(
      Array.from({ length: MAX_STREAMED_CHARS / piece.length + 1 }, () => chunk({ content: piece })),
    );
    await expect(gatherCompletion(endless, 'openai:m@http://x/v1')).rejects.toMatchObject({
      type: 'ModelError.BadResponse',
      message: expect.stringContaining('streamed more than'),
    });
  });
});
