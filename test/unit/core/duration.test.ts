import { formatDuration, parseDuration } from '../../../src/core/duration';

describe('schedule durations', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1500ms', 1500],
    [' 10m ', 600_000],
  ])('reads %j', (text, milliseconds) => {
    expect(parseDuration(text)).toBe(milliseconds);
  });

  it.each(['', '5', 'm', '5 m', '5min', '-5m', '1.5h', '0s', 'PT5M'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('formats what it reads', () => {
    for (const text of ['30s', '5m', '1h30m', '2d', '1d2h3m4s5ms'])
      expect(formatDuration(parseDuration(text) as number)).toBe(text);
    expect(formatDuration(90_000)).toBe('1m30s');
  });
});
