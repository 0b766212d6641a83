import { PAYLOAD_BUDGET_BYTES, payloadBytes } from '../payload';
import type { AgentInput } from './agent';

/**
 * The next run's input within the payload budget: past it the server would terminate the agent at continue-as-new.
 * Memory, settings, held directives and queued work are what the agent is; what gives way is its recollection of
 * past cycles and shown directives, oldest first, which the histories keep anyway.
 */
export function fitHandover(input: AgentInput, budget = PAYLOAD_BUDGET_BYTES): AgentInput {
  const { handover } = input;
  if (!handover) return input;
  let { cycles, directiveLog } = handover;
  let fitted = input;
  while (payloadBytes(fitted) > budget && (cycles.length > 0 || directiveLog.length > 0)) {
    cycles = cycles.slice(Math.ceil(cycles.length / 2));
    directiveLog = directiveLog.slice(Math.ceil(directiveLog.length / 2));
    fitted = { ...input, handover: { ...handover, cycles, directiveLog } };
  }
  return fitted;
}
