import { z } from 'zod';
import { cycleInputShape } from '../cycle/input';
import { getterOf } from '../shareable';

/** The research fact an investigation writes. */
export const ResearchFactSchema = getterOf(
  z.object({
    supervisorId: z.string().min(1).max(300),
    workerId: z.string().min(1).max(300),
    entity: z.string().min(1).max(200),
    field: z.string().min(1).max(200),
    /** The worker's capability token, which its board writes present; never passed to a sub-agent. */
    token: z.string().min(1).max(100).optional(),
  }),
);
export type ResearchFact = z.output<ReturnType<typeof ResearchFactSchema>>;

/** Input of one `investigationCycle` workflow: the base input and the research worker's fact. */
export const InvestigationInputSchema = getterOf(
  z.strictObject({ ...cycleInputShape(), research: ResearchFactSchema() }),
);
export type InvestigationInput = z.input<ReturnType<typeof InvestigationInputSchema>>;
export type ParsedInvestigationInput = z.output<ReturnType<typeof InvestigationInputSchema>>;
