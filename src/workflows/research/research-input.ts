import {
  type ParsedResearchInput,
  type ResearchHandover,
  ResearchHandoverSchema,
  ResearchInputSchema,
  UserDirectiveSchema,
} from '../../core/research/run';
import { ResearchError } from '../../common/failure-types';
import { signalArgs } from '../../common/signal-args';
import { parseWorkflowInput } from '../../common/workflow-input';
import type { ResearchRun } from './research-run';

/**
 * The supervisor's two arguments, its input and what a continue-as-new hands over, each checked at its edge. A first
 * start has no handover: absent, or null from a client that spells it out.
 */
export function parseResearchStart(
  rawInput: unknown,
  rawHandover: unknown,
): { input: ParsedResearchInput; handover?: ResearchHandover } {
  const input = parseWorkflowInput(ResearchInputSchema(), rawInput, ResearchError.BadInput, 'research input');
  if (rawHandover === undefined || rawHandover === null) return { input };
  const handover = parseWorkflowInput(
    ResearchHandoverSchema(),
    rawHandover,
    ResearchError.BadInput,
    'research handover',
  );
  return { input, handover: handover as ResearchHandover };
}

/** The `directive` signal: a malformed one (`by: 5`, null, no text) is dropped with a warning, never thrown. */
export function receiveDirective(run: ResearchRun, raw: unknown): void {
  const directive = signalArgs(UserDirectiveSchema(), raw, 'directive');
  if (directive) run.directive(directive.author, directive.draft, Date.now());
}
