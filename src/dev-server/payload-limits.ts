import { PAYLOAD_BUDGET_BYTES, SERVER_PAYLOAD_LIMIT_BYTES } from '../core/payload';

/*
 * One key covers every payload (signals and updates have no key of their own in server 1.29: see
 * go.temporal.io/server common/dynamicconfig/constants.go), per namespace. The warning marks a payload past the
 * project's budget in the server's log: a sender other than the project's own workflows, or a budget this code missed.
 */
/** The server's payload limits, as dynamic configuration: the dev server's flags and the cluster's file both use it. */
export const PAYLOAD_LIMIT_SETTINGS = {
  'limit.blobSize.error': SERVER_PAYLOAD_LIMIT_BYTES,
  'limit.blobSize.warn': PAYLOAD_BUDGET_BYTES,
} as const;

/** `temporal server start-dev` flags setting {@link PAYLOAD_LIMIT_SETTINGS}. */
export function payloadLimitArgs(): string[] {
  return Object.entries(PAYLOAD_LIMIT_SETTINGS).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${value}`,
  ]);
}

/**
 * Timer queue settings that let a missed heartbeat and the retry after it fire on time: by default each may fire up
 * to a second late, which was most of what a killed worker's call waited beyond its heartbeat timeout (test/faults).
 */
export const TIMER_SETTINGS = {
  'history.timerProcessorMaxPollRPS': 10000,
  'history.timerProcessorMaxTimeShift': '100ms',
} as const;
