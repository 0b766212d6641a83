import { RUN_NOTES_CONVENTION } from '../cycle/run-notes';

/** Run-local notes (design.md, Prior scratchpad): a convention the model may follow or ignore; nothing parses it. */
export const SCRATCHPAD_CONVENTION = RUN_NOTES_CONVENTION;

/** A staged run's stage: the cycle's rules narrowed to one slice of work that must change files. */
export const STAGED_SYSTEM_RULES = `This cycle is one stage of a staged run. Do only this stage. Write concrete files with fs_write;
a stage that changes no files is not complete. Keep to the stage's cap on paths. Call done when the stage's files are
written. A separate verification decides whether the work is complete, not your summary.`;

/** The plan-only turn: no tool that writes is offered. */
export const STAGED_PLAN_SYSTEM = `You are planning a software task for a small, careful executor. Do not write code or files.
Split the task into a few small stages, in order; each stage should touch at most a few files and leave the project
runnable. Include tests that the verification command will run. Reply with one call to the plan tool.

${SCRATCHPAD_CONVENTION}`;
