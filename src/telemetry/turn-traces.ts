// Workflow code (the sandbox), in the agent workflow with telemetry on.
import * as otel from '@opentelemetry/api';
import { headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type {
  Next,
  SignalInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The agent's messages that start a turn, whose trace the turn's cycle continues. */
const TURN_UPDATES = new Set(['send', 'startTurn', 'runCycle', 'enqueue']);
const TURN_SIGNALS = new Set(['wake']);
/** Turns asked while earlier ones wait are few; past this many the oldest are forgotten. */
const MAX_WAITING = 100;

interface Turn {
  /** A chat turn's message, which its cycle's input carries too; absent for task turns. */
  message?: string;
  context: otel.Context;
}

function messageOf(value: unknown): string | undefined {
  const message = (value as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * The agent starts each turn's cycle from its main loop, whose trace is the agent's own start. The message that asked
 * for the turn left its context here; the cycle continues that trace instead, so one turn is one trace from the
 * client to the activities. A chat cycle takes the turn with its message; a task cycle the oldest task turn.
 */
class TurnTraces {
  private readonly waiting: Turn[] = [];

  remember(message: string | undefined): void {
    this.waiting.push({ message, context: otel.context.active() });
    if (this.waiting.length > MAX_WAITING) this.waiting.shift();
  }

  continueTurn(input: StartChildWorkflowExecutionInput): StartChildWorkflowExecutionInput {
    if (input.workflowType !== 'agentCycle') return input;
    const message = messageOf(input.options.args?.[0]);
    const index = this.waiting.findIndex((turn) => turn.message === message);
    const [turn] = this.waiting.splice(index < 0 ? 0 : index, 1);
    return turn
      ? { ...input, headers: otel.context.with(turn.context, () => headersWithContext(input.headers)) }
      : input;
  }
}

class AgentInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly turns: TurnTraces) {}

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    if (TURN_UPDATES.has(input.name)) this.turns.remember(messageOf(input.args[0]));
    return next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    if (TURN_SIGNALS.has(input.signalName)) this.turns.remember(undefined);
    return next(input);
  }
}

class AgentOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly turns: TurnTraces) {}

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    return next(this.turns.continueTurn(input));
  }
}

/** The agent workflow's interceptors: its turns' traces handed to their cycles. */
export function agentTurnInterceptors(): WorkflowInterceptors {
  const turns = new TurnTraces();
  return { inbound: [new AgentInbound(turns)], outbound: [new AgentOutbound(turns)] };
}
