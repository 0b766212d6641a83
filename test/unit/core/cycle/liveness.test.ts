import { heartbeatIntervalMs } from '../../../../src/activities/heartbeat';
import { parseHeartbeatTimeouts } from '../../../../src/cli/options';
import {
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  HeartbeatTimeoutsSchema,
  heartbeatTimeoutOf,
} from '../../../../src/core/cycle/liveness';
import { modelActivityOptions, toolActivityOptions } from '../../../../src/workflows/cycle/activity-options';

describe('liveness: heartbeat timeouts by activity kind', () => {
  it('takes the default for kinds an agent does not set', () => {
    const input = { heartbeatTimeoutMs: { tool: 30_000 } };
    expect(heartbeatTimeoutOf(input, 'tool')).toBe(30_000);
    expect(heartbeatTimeoutOf(input, 'model')).toBe(DEFAULT_HEARTBEAT_TIMEOUT_MS);
    expect(heartbeatTimeoutOf({}, 'verification')).toBe(DEFAULT_HEARTBEAT_TIMEOUT_MS);
  });

  it('gives each activity its kind’s timeout, seconds, not the start-to-close timeout', () => {
    expect(modelActivityOptions(3).heartbeatTimeout).toBe(DEFAULT_HEARTBEAT_TIMEOUT_MS);
    expect(modelActivityOptions(3, 9000).heartbeatTimeout).toBe(9000);
    expect(toolActivityOptions(3, { retry: false }, 12_000)).toMatchObject({
      heartbeatTimeout: 12_000,
      retry: { maximumAttempts: 1 },
    });
  });

  it('heartbeats every second, or four times per timeout when that is shorter', () => {
    expect(heartbeatIntervalMs(undefined)).toBe(1000);
    expect(heartbeatIntervalMs(4000)).toBe(1000);
    expect(heartbeatIntervalMs(2000)).toBe(500);
    expect(heartbeatIntervalMs(60_000)).toBe(1000);
  });

  it('refuses timeouts under a second or over ten minutes, and kinds it does not know', () => {
    expect(HeartbeatTimeoutsSchema().safeParse({ model: 999 }).success).toBe(false);
    expect(HeartbeatTimeoutsSchema().safeParse({ tool: 600_001 }).success).toBe(false);
    expect(HeartbeatTimeoutsSchema().safeParse({ shell: 5000 }).success).toBe(false);
  });

  it('parses --heartbeat-timeout in seconds, by kind or for all', () => {
    expect(parseHeartbeatTimeouts('model=4,tool=10')).toEqual({ model: 4000, tool: 10_000 });
    expect(parseHeartbeatTimeouts('2.5')).toEqual({ model: 2500, tool: 2500, verification: 2500 });
    expect(() => parseHeartbeatTimeouts('model=0')).toThrow(/not from 1 to 600 seconds/);
    expect(() => parseHeartbeatTimeouts('shell=5')).toThrow(/KIND model, tool or verification/);
    expect(() => parseHeartbeatTimeouts('model=4=5')).toThrow(/invalid --heartbeat-timeout/);
  });
});
