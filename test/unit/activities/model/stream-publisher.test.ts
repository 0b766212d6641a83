import { setTimeout as sleep } from 'node:timers/promises';
import { StreamPublisher } from '../../../../src/activities/model/stream-publisher';
import type { StreamChunk } from '../../../../src/core/cycle/turn-stream';

describe('the stream publisher of a model call', () => {
  it('sends the first piece at once, batches the rest, and has sent everything once closed', async () => {
    const sent: { chunk: StreamChunk; at: number }[] = [];
    const began = Date.now();
    const publisher = new StreamPublisher(
      async (chunk) => void sent.push({ chunk, at: Date.now() - began }),
      3,
      2,
      100,
    );
    publisher.text('First');
    for (const piece of [' a', ' b', ' c']) publisher.text(piece);
    await sleep(20);
    expect(sent.map(({ chunk }) => chunk)).toEqual([{ call: 3, attempt: 2, seq: 0, text: 'First' }]);
    await sleep(150);
    publisher.text(' d');
    await publisher.close();
    expect(sent.map(({ chunk }) => [chunk.seq, chunk.text])).toEqual([
      [0, 'First'],
      [1, ' a b c'],
      [2, ' d'],
    ]);
  });

  it('stops publishing after a send fails, and its close still resolves', async () => {
    const sent: string[] = [];
    let fail = false;
    const publisher = new StreamPublisher(
      async (chunk) => {
        if (fail) throw new Error('workflow closed');
        sent.push(chunk.text);
      },
      1,
      1,
      10,
    );
    publisher.text('one');
    await sleep(5);
    fail = true;
    publisher.text('two');
    await sleep(30);
    fail = false;
    publisher.text('three');
    await publisher.close();
    expect(sent).toEqual(['one']);
  });

  it('splits a batch longer than a signal carries, never inside a character', async () => {
    const sent: string[] = [];
    const publisher = new StreamPublisher(async (chunk) => void sent.push(chunk.text), 1, 1, 10);
    publisher.text('a');
    publisher.text('😀'.repeat(9_000));
    await publisher.close();
    expect(sent.join('')).toBe(`a${'😀'.repeat(9_000)}`);
    expect(sent.every((text) => Array.from(text).length <= 8_000)).toBe(true);
  });
});
