import type { Observation } from '../../src/core/tools/observation';
import { toolNote, observationText } from '../../src/core/tools/observation';
import { codePointLength } from '../../src/core/text';
import { createScratchpadRead } from './scratchpad-read-fixture';
import {
  SYNTHETIC_MAX_BYTES,
  observationBytes,
  syntheticObservation,
} from '../../src/activities/observations/synthetic';
import { TextView } from '../../src/activities/observations/text-view';

const FACTS = { id: '485d7beae4e144eb', kind: 'text' as const, sizeBytes: 0, step: 3 };
const METADATA = { path: '/tmp/big.txt', bytes: 123_456, encoding: 'utf-8' };

function edges(summary: string): { head: string; tail: string } {
  const match = /^([\s\S]*)\n\[\.\.\. (\d+) characters omitted \.\.\.\]\n([\s\S]*)$/.exec(summary);
  if (!match) throw new Error(`not a head-and-tail summary: ${summary.slice(0, 80)}`);
  return { head: match[1] as string, tail: match[3] as string };
}

function synthesize(text: string): Observation {
  return syntheticObservation({ ...FACTS, sizeBytes: Buffer.byteLength(text) }, new TextView(text), {
    ok: true,
    result: text,
    ...METADATA,
  });
}

const SCRIPTS: Record<string, string> = {
  chinese: '日志第一行：系统启动成功，正在加载配置文件。\n'.repeat(800),
  russian: 'Журнал: система запущена, конфигурация загружена успешно.\n'.repeat(800),
  emojiChat: 'Anna: 😀🎉 see you at 🍕 tonight? 👍👍\nBen: 🙌 yes!! 🚀🔥\n'.repeat(800),
  prettyJson: JSON.stringify(
    Array.from({ length: 400 }, (_, index) => ({ id: index, name: `item "${index}"`, tags: ['a', 'b'] })),
    null,
    2,
  ),
};

describe('large-observation previews for any script (seed 002)', () => {
  it.each(Object.entries(SCRIPTS))('%s keeps at least 150 whole characters on each side, balanced', (_, text) => {
    const synthetic = synthesize(text);
    const { head, tail } = edges(synthetic.summary as string);
    expect(codePointLength(head)).toBeGreaterThanOrEqual(150);
    expect(codePointLength(head)).toBe(codePointLength(tail));
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(observationBytes(synthetic)).toBeLessThan(2048);
  });

  it('keeps 500 + 500 for ASCII, with the omitted count in characters', () => {
    const text = Array.from({ length: 3000 }, (_, index) => `INFO event number ${index}`).join('\n');
    const synthetic = synthesize(text);
    const { head, tail } = edges(synthetic.summary as string);
    expect([head.length, tail.length]).toEqual([500, 500]);
    expect(synthetic.summary).toContain(`[... ${text.length - 1000} characters omitted ...]`);
    expect(observationBytes(synthetic)).toBeLessThanOrEqual(SYNTHETIC_MAX_BYTES);
  });

  it('never splits an emoji at either edge, and the note keeps the synthetic observation whole', () => {
    const text = '😀'.repeat(20_000);
    const synthetic = synthesize(text);
    const { head, tail } = edges(synthetic.summary as string);
    expect(head).toBe('😀'.repeat(codePointLength(head)));
    expect(tail).toBe('😀'.repeat(codePointLength(tail)));
    expect(codePointLength(head)).toBeGreaterThanOrEqual(150);
    expect(toolNote('fs_read', {}, synthetic)).toContain(observationText(synthetic));
  });
});

describe('scratchpad_read mode full (seed 002: "under the threshold or a little above")', () => {
  it('serves an offloaded entry up to twice the offload threshold whole', async () => {
    const text = 'x'.repeat(8192);
    const whole = await createScratchpadRead(4096).readFull(text);
    expect(whole).toMatchObject({ ok: true, start: 0, end: 8192, total_chars: 8192 });
    expect(whole.result === text).toBe(true);
  });

  it('refuses beyond that, naming head, tail, range, lines and grep', async () => {
    const refusal = await createScratchpadRead(4096).readFull('y'.repeat(8193));
    expect(refusal.ok).toBe(false);
    for (const mode of ['head', 'tail', 'range', 'lines', 'grep']) expect(refusal.error).toContain(mode);
  });

  it('follows a smaller configured threshold', async () => {
    expect(await createScratchpadRead(1000).readFull('z'.repeat(2001))).toMatchObject({
      ok: false,
      error: expect.stringContaining('(2000)'),
    });
  });
});
