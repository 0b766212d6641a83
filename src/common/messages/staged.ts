import { defineQuery } from '@temporalio/workflow';
import type { StageRecord, StagedResult, Verification } from '../../core/staged/input';

/** Where a staged run stands: its phase, plan, stages so far, verifications, and the outcome once known. */
export interface StagedProgress {
  phase: 'planning' | 'stages' | 'verifying' | 'repairing' | 'done';
  plan: string[];
  stages: StageRecord[];
  verifications: Verification[];
  outcome?: StagedResult['outcome'];
}

export const stagedProgressQuery = defineQuery<StagedProgress>('stagedProgress');
