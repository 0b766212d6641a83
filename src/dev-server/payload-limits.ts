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
