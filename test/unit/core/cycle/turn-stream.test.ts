import { MAX_STREAM_TEXT_CHARS, TurnStreamLog } from '../../../../src/core/cycle/turn-stream';

const chunk = (call: number, attempt: number, seq: number, text: string) => ({ call, attempt, seq, text });

describe('a turn stream log', () => {
  it('numbers its events and keeps an attempt’s batches in order, each once', () => {
    const log = new TurnStreamLog();
    log.chunk(chunk(1, 1, 0, 'Hel'));
    log.chunk(chunk(1, 1, 0, 'Hel')); // sent twice: a signal retried
    log.chunk(chunk(1, 1, 2, 'ahead')); // a gap: dropped rather than shown out of order
    log.chunk(chunk(1, 1, 1, 'lo'));
    log.end({ type: 'done', reply: 'Hello', outcome: 'completed' });
    expect(log.events).toEqual([
      { offset: 0, type: 'text', text: 'Hel' },
      { offset: 1, type: 'text', text: 'lo' },
      { offset: 2, type: 'done', reply: 'Hello', outcome: 'completed' },
    ]);
  });

  it('announces a new attempt that follows text with `restart`, and drops a late batch of the old one', () => {
    const log = new TurnStreamLog();
    log.chunk(chunk(1, 1, 0, 'first try'));
    log.chunk(chunk(1, 2, 0, 'second'));
    log.chunk(chunk(1, 1, 1, 'late'));
    expect(log.events.map((event) => event.type)).toEqual(['text', 'restart', 'text']);
    expect(log.events[1]).toMatchObject({ attempt: 2 });
  });

  it('starts a later model call without `restart`, and ignores an earlier call’s batch', () => {
    const log = new TurnStreamLog();
    log.chunk(chunk(1, 1, 0, 'a'));
    log.tool('start', 'echo', { message: 'x'.repeat(500) });
    log.tool('end', 'echo', undefined, true);
    log.chunk(chunk(2, 1, 0, 'b'));
    log.chunk(chunk(1, 1, 1, 'stale'));
    expect(log.events.map((event) => event.type)).toEqual(['text', 'tool', 'tool', 'text']);
    expect((log.events[1] as { args: string }).args.length).toBe(200);
  });

  it('ends once, holds nothing after its end, and caps its text', () => {
    const log = new TurnStreamLog();
    log.chunk(chunk(1, 1, 0, 'x'.repeat(MAX_STREAM_TEXT_CHARS - 1)));
    log.chunk(chunk(1, 1, 1, 'yz'));
    log.end({ type: 'error', message: 'failed' });
    log.end({ type: 'done', reply: '', outcome: 'completed' });
    log.chunk(chunk(1, 1, 2, 'after'));
    expect(log.events.map((event) => event.type)).toEqual(['text', 'text', 'error']);
    expect(log.events[1]).toMatchObject({ text: 'y' });
    expect(log.ended).toBe(true);
  });

  it('pages from an offset, a page at most about 32,000 characters, and says when the last event is read', () => {
    const log = new TurnStreamLog();
    for (let seq = 0; seq < 10; seq++) log.chunk(chunk(1, 1, seq, 'z'.repeat(6_000)));
    log.end({ type: 'done', reply: '', outcome: 'completed' });
    const first = log.page(0);
    expect(first.events.length).toBeLessThan(10);
    expect(first.ended).toBe(false);
    let page = first;
    const read = [...first.events];
    while (!page.ended) {
      page = log.page(page.next);
      read.push(...page.events);
    }
    expect(read).toEqual(log.events);
    expect(log.page(read.length)).toEqual({ events: [], next: read.length, ended: true });
  });
});
