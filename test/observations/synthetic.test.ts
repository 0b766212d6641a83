import { createHash } from 'node:crypto';
import { type Observation, isStoredObservation, observationText, toolNote } from '../../src/core/tools/observation';
import type { EntryInfo } from '../../src/activities/observations/entry';
import { rebuildObservation, splitObservation } from '../../src/activities/observations/split';
import {
  SYNTHETIC_MAX_BYTES,
  SYNTHETIC_NOTE,
  headTailSummary,
  isLargeObservation,
  observationBytes,
  syntheticObservation,
} from '../../src/activities/observations/synthetic';
import { TextView } from '../../src/activities/observations/text-view';

const FACTS = { id: '485d7beae4e144eb', kind: 'text' as const, sizeBytes: 0, step: 1 };

function synthesize(observation: Observation): Observation {
  const split = splitObservation(observation);
  const content = typeof split.content === 'string' ? new TextView(split.content) : split.content;
  return syntheticObservation({ ...FACTS, kind: split.kind, sizeBytes: split.content.length }, content, observation);
}

function bigLog(lines: number): string {
  return Array.from({ length: lines }, (_, index) => `INFO 2026-04-26 10:00:01 event number ${index}\n`).join('');
}

describe("seed 002's synthetic observation", () => {
  it('has exactly the seed fields, a 500 + 500 summary with the exact count omitted, and the metadata', () => {
    const content = `${bigLog(2000)}ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT\n`;
    const observation = { ok: true, result: content, path: 'big_log.txt', bytes: content.length, encoding: 'utf-8' };
    const synthetic = synthesize(observation);
    expect(Object.keys(synthetic)).toEqual([
      'ok',
      'scratchpad_id',
      'size_bytes',
      'kind',
      'summary',
      'metadata',
      '_note',
    ]);
    expect(synthetic).toMatchObject({
      ok: true,
      scratchpad_id: FACTS.id,
      size_bytes: content.length,
      kind: 'text',
      metadata: { path: 'big_log.txt', bytes: content.length, encoding: 'utf-8' },
    });
    expect(synthetic.summary).toBe(
      `${content.slice(0, 500)}\n[... ${content.length - 1000} characters omitted ...]\n${content.slice(-500)}`,
    );
    expect(synthetic.summary).toContain('LAST_CRITICAL_EVENT');
    expect(synthetic._note).toBe(
      `${SYNTHETIC_NOTE} To pass its full content to another tool, write {{step1.content}} in its arguments.`,
    );
    expect(observationBytes(synthetic)).toBeLessThan(SYNTHETIC_MAX_BYTES);
    expect(isStoredObservation(synthetic)).toBe(true);
  });

  it('stays within SYNTHETIC_MAX_BYTES for multi-byte, escape-heavy and huge-metadata observations', () => {
    const cases: Observation[] = [
      { ok: true, result: '日本語のテキスト😀'.repeat(5000) },
      { ok: true, result: JSON.stringify({ a: '"quoted"\\', b: ['\u0001\u0002'] }).repeat(2000) },
      {
        ok: true,
        result: 'x'.repeat(10_000),
        url: `http://127.0.0.1/${'p'.repeat(5000)}`,
        headers: { a: 'b'.repeat(900) },
      },
      {
        ok: true,
        result: 'y'.repeat(10_000),
        ...Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i])),
      },
      { ok: false, error: 'exited with code 1: '.repeat(200), result: { exit_code: 1, stdout: 'z'.repeat(20_000) } },
    ];
    for (const observation of cases) {
      const synthetic = synthesize(observation);
      expect(observationBytes(synthetic)).toBeLessThanOrEqual(SYNTHETIC_MAX_BYTES);
      expect(synthetic.summary).toMatch(/\[\.\.\. \d+ characters omitted \.\.\.\]/);
      // A note keeps it whole: a synthetic observation is exempt from the 1500-character cut.
      expect(toolNote('fs_read', {}, synthetic)).toContain(observationText(synthetic));
    }
  });

  it('keeps a failed tool’s error and id visible in notes', () => {
    const synthetic = synthesize({ ok: false, error: 'exited with code 2', result: { stdout: 'o'.repeat(9000) } });
    expect(synthetic).toMatchObject({ ok: false, error: 'exited with code 2', scratchpad_id: FACTS.id });
    expect(observationText(synthetic)).toContain(FACTS.id);
  });

  it('summarizes binary content by size and sha256', () => {
    const bytes = Buffer.from(Array.from({ length: 45_123 }, (_, index) => (index * 7) % 256));
    const synthetic = synthesize({ ok: true, result: bytes.toString('base64'), path: 'a.zip', encoding: 'binary' });
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(synthetic).toMatchObject({
      kind: 'binary',
      size_bytes: 45_123,
      summary: `[BINARY: 45123 bytes, sha256=${sha}]`,
    });
  });

  it('compares JSON bytes with the threshold', () => {
    expect(isLargeObservation({ ok: true, result: 'x'.repeat(4000) }, 4096)).toBe(false);
    expect(isLargeObservation({ ok: true, result: 'x'.repeat(4100) }, 4096)).toBe(true);
    expect(isLargeObservation({ ok: true, result: 'é'.repeat(2100) }, 4096)).toBe(true);
  });

  it('headTailSummary returns short text whole', () => {
    expect(headTailSummary(new TextView('short'))).toBe('short');
  });
});

describe('split and rebuild', () => {
  const entry = (split: ReturnType<typeof splitObservation>): EntryInfo => ({
    id: FACTS.id,
    turnId: 't',
    step: 1,
    toolName: 'x',
    agentId: null,
    kind: split.kind,
    sizeBytes: 0,
    summary: null,
    metadata: split.metadata,
    resultFormat: split.resultFormat,
    createdAt: 0,
    expiresAt: null,
  });

  it.each<[string, Observation]>([
    ['text', { ok: true, result: 'héllo 😀', path: 'a.txt', encoding: 'utf-8' }],
    ['base64', { ok: true, result: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'binary' }],
    ['json', { ok: false, result: { exit_code: 1, stdout: 'out', stderr: '' }, error: 'exited with code 1' }],
    ['none', { ok: false, error: 'no such file: x' }],
  ])('gives back the %s observation the tool returned', (_format, observation) => {
    const split = splitObservation(observation);
    expect(rebuildObservation(entry(split), split.content)).toEqual(observation);
  });
});
