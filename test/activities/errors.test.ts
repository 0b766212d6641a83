import { ApplicationFailure } from '@temporalio/common';
import { toModelFailure } from '../../src/activities/model/errors';
import { ModelError } from '../../src/common/failure-types';

describe('toModelFailure', () => {
  it.each([
    [400, 'ModelError.BadRequest', false],
    [422, 'ModelError.BadRequest', false],
    [401, 'ModelError.Auth', false],
    [403, 'ModelError.Auth', false],
    [404, 'ModelError.NotFound', false],
    [413, 'ModelError.BadRequest', false],
    [408, 'ModelError.Timeout', true],
    [409, 'ModelError.Conflict', true],
    [429, 'ModelError.RateLimit', true],
    [500, 'ModelError.Server', true],
    [502, 'ModelError.Server', true],
    [503, 'ModelError.Overloaded', true],
    [529, 'ModelError.Overloaded', true],
  ])('maps HTTP %i to %s (retryable: %s)', (status, type, retryable) => {
    const failure = toModelFailure({ status, apiMessage: 'provider text' }, 'test:model');

    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(failure.message).toBe(`HTTP ${status} from test:model: provider text`);
  });

  it('prefers retry-after-ms, then retry-after seconds or HTTP-date, from Headers or plain objects', () => {
    const delay = (headers: Record<string, string>) =>
      toModelFailure({ status: 429, headers: new Headers(headers) }, 'x').nextRetryDelay;

    expect(delay({ 'retry-after-ms': '250.4', 'retry-after': '9' })).toBe(250);
    expect(delay({ 'retry-after': '2.5' })).toBe(2500);
    expect(delay({ 'retry-after': new Date(Date.now() - 60_000).toUTCString() })).toBe(0);
    expect(delay({ 'retry-after': 'soon' })).toBeUndefined();
    expect(delay({})).toBeUndefined();
    expect(toModelFailure({ status: 503, headers: { 'Retry-After': '4' } }, 'x').nextRetryDelay).toBe(4000);
  });

  it('ignores retry-after on non-retryable statuses', () => {
    expect(toModelFailure({ status: 400, headers: { 'retry-after': '4' } }, 'x').nextRetryDelay).toBeUndefined();
  });

  it('classifies network errors and timeouts by name and code, with the cause chain in the message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const connection = toModelFailure(new TypeError('fetch failed', { cause: refused }), 'x');
    const timeout = toModelFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'x');

    expect(connection).toMatchObject({ type: 'ModelError.Connection', nonRetryable: false });
    expect(connection.message).toBe('cannot reach x: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(timeout).toMatchObject({ type: 'ModelError.Timeout', nonRetryable: false });
  });

  it('passes ApplicationFailures through and treats anything else as a retryable unknown', () => {
    const original = ApplicationFailure.nonRetryable('already typed', 'ModelError.BadResponse');

    expect(toModelFailure(original, 'x')).toBe(original);
    expect(toModelFailure(new Error('boom'), 'x')).toMatchObject({ type: 'ModelError.Unknown', nonRetryable: false });
  });

  it('obeys x-should-retry over the status, as the Anthropic SDK does', () => {
    const failure = (status: number, told: string) =>
      toModelFailure({ status, headers: { 'x-should-retry': told, 'retry-after': '3' } }, 'x');

    expect(failure(429, 'false')).toMatchObject({ type: ModelError.RateLimit, nonRetryable: true });
    expect(failure(429, 'false').nextRetryDelay).toBeUndefined();
    expect(failure(400, 'true')).toMatchObject({ type: ModelError.RetryRequested, nonRetryable: false });
    expect(failure(400, 'true').nextRetryDelay).toBe(3000);
    expect(failure(500, 'true')).toMatchObject({ type: ModelError.Server, nonRetryable: false });
    expect(failure(400, 'maybe')).toMatchObject({ type: ModelError.BadRequest, nonRetryable: true });
  });

  it('keeps the provider error as the cause: its name, frames and an excerpt of its message', () => {
    const original = Object.assign(new Error('429 slow down'), { status: 429 });
    const network = new TypeError('fetch failed');

    expect(toModelFailure(original, 'x').cause).toMatchObject({ name: 'Error', message: '429 slow down' });
    expect(toModelFailure(original, 'x').cause?.stack).toBe(original.stack);
    expect(toModelFailure(network, 'x').cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(toModelFailure({ status: 500 }, 'x').cause).toBeUndefined();
  });

  it('quotes a long or multi-line provider message as one short line, in the message and the cause', () => {
    const body = `<html>\n<body>${'z'.repeat(300)}SECRET</body>\n</html>`;
    const http = toModelFailure(Object.assign(new Error(`502 ${body}`), { status: 502 }), 'x');
    const network = toModelFailure(new Error(`socket hang up\n${body}`), 'x');

    expect(http.message).toMatch(/^HTTP 502 from x: 502 <html> <body>z+…$/);
    for (const failure of [http, network]) {
      expect(failure.message).not.toMatch(/SECRET|\n/);
      expect(failure.cause?.message.length).toBeLessThanOrEqual(120);
      expect(failure.cause?.stack).not.toMatch(/SECRET|<\/html>/);
    }
    expect(network.message).toMatch(/^calling x failed: socket hang up <html> <body>z+…$/);
  });
});
