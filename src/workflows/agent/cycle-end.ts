import {
  type CycleRecord,
  type DirectiveRecord,
  boundedUsageByModel,
  cycleRecordOf,
  rememberCycle,
} from '../../core/agent/agent';
import { cancelledRecord } from '../../core/agent/cancel';
import { reconcileDirectives } from '../../core/agent/directives';
import type { CycleResult } from '../../core/cycle/input';
import { type Usage, mergeUsageByModel } from '../../core/cycle/model';
import { type Scratchpad, memoryChanged } from '../../core/scratchpad/scratchpad';
import type { RunningCycle } from './child-cycle';
import { turnsSinceMemoryChanged } from '../../core/agent/cycle-record';
import { telemetryHook } from '../../common/telemetry-hook';

/** The parts of an agent's home a finished cycle changes. */
export interface CycleMemory {
  scratchpad: Scratchpad;
  heldDirectives: string[];
  directiveLog: DirectiveRecord[];
  usageByModel: Record<string, Usage>;
  cycles: CycleRecord[];
}

/**
 * Adopts what a cycle left into `home` and returns its record. A cancelled cycle leaves the memory exactly as it was
 * (no after-state, not even a note): only its record is kept, and the directives it was given are held again.
 */
export function adoptCycle(home: CycleMemory, child: RunningCycle, result: CycleResult | 'cancelled'): CycleRecord {
  const { cycleId, trigger, given } = child;
  const cancelled = result === 'cancelled';
  const shown = cancelled ? [] : (result.directives ?? []).map((entry) => entry.text);
  const changed = !cancelled && memoryChanged(home.scratchpad, result.after);
  if (!cancelled) {
    home.scratchpad = { ...result.after, last_updated: new Date().toISOString() };
    home.usageByModel = boundedUsageByModel(mergeUsageByModel(home.usageByModel, result.usageByModel ?? {}));
  }
  const book = { held: home.heldDirectives, log: home.directiveLog };
  ({ held: home.heldDirectives, log: home.directiveLog } = reconcileDirectives(book, { cycleId, given, shown }));
  const record = cancelled ? cancelledRecord(cycleId, trigger) : cycleRecordOf(result, trigger, shown, changed);
  home.cycles = rememberCycle(home.cycles, record);
  telemetryHook()?.cycleAdopted(home.scratchpad, turnsSinceMemoryChanged(home.cycles));
  return record;
}
