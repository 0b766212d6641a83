import { defineQuery } from '@temporalio/workflow';
import type { StageRecord, StagedResult, Verification } from '../../core/staged/input';
import type { PendingApproval } from '../../core/tools/approval';

/** Where a staged run stands: its phase, plan, stages so far, verifications, and the outcome once known. */
export interface StagedProgress {
  phase: 'planning' | 'stages' | 'verifying' | 'repairing' | 'done';
  plan: string[];
  stages: StageRecord[];
  verifications: Verification[];
  outcome?: StagedResult['outcome'];
  /** What happened that the stages alone do not say: no plan, no stage that changed anything. */
  notices?: string[];
  /** Calls a stage waits on for a person's decision (each names its stage in `context`); absent when none waits. */
  approvals?: PendingApproval[];
}

export const stagedProgressQuery = defineQuery<StagedProgress>('stagedProgress');
