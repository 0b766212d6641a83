import { allHandlersFinished, condition, continueAsNew, setHandler } from '@temporalio/workflow';
import {
  type AgentInput,
  AgentInputSchema,
  EnqueueArgsSchema,
  RunCycleArgsSchema,
  SendArgsSchema,
} from '../../core/agent/agent';
import {
  cancelCycleUpdate,
  configureUpdate,
  cyclesQuery,
  directiveSignal,
  directivesQuery,
  enqueueUpdate,
  importUpdate,
  injectUpdate,
  replySignal,
  rewindUpdate,
  runCycleUpdate,
  scratchpadQuery,
  sendUpdate,
  startTurnUpdate,
  statusQuery,
  waitForCycleUpdate,
  wakeSignal,
} from '../../common/messages/agent';
import { AgentError } from '../../common/failure-types';
import { parseWorkflowInput } from '../../common/workflow-input';
import { AgentHome } from './agent-home';
import { registerApprovals } from './approvals';
import {
  validate,
  validateCancel,
  validateConfigure,
  validateImport,
  validateInject,
  validateQueue,
} from './validators';
import { validateRewind } from './time-travel';
import { validateWaitForCycle, waitForCycle } from './cycle-wait';

/** Queries, signals and updates of the agent workflow, each handed to its home. */
function registerHandlers(home: AgentHome): void {
  setHandler(scratchpadQuery, () => home.scratchpad);
  setHandler(cyclesQuery, () => home.cycles);
  setHandler(directivesQuery, () => home.directiveLog);
  setHandler(statusQuery, () => home.status());
  setHandler(sendUpdate, (args) => home.send(args), { validator: (args) => validate(SendArgsSchema(), args) });
  setHandler(
    startTurnUpdate,
    async (args) => {
      const { message, model } = SendArgsSchema().parse(args);
      return { cycleId: await home.queue.begin(message, model) };
    },
    { validator: (args) => validate(SendArgsSchema(), args) },
  );
  setHandler(runCycleUpdate, (args) => home.runCycle(args), {
    validator: (args) => validateQueue(home.scratchpad, RunCycleArgsSchema(), args),
  });
  setHandler(enqueueUpdate, (args) => home.enqueue(args), {
    validator: (args) => validateQueue(home.scratchpad, EnqueueArgsSchema(), args),
  });
  setHandler(injectUpdate, (args) => home.inject(args), { validator: (args) => validateInject(home.scratchpad, args) });
  setHandler(importUpdate, (state) => home.import(state), { validator: (state) => validateImport(state) });
  setHandler(configureUpdate, (changes) => home.configure(changes), {
    validator: (changes) => validateConfigure(home.settings, changes),
  });
  setHandler(cancelCycleUpdate, (args) => home.cancelCycle(args), {
    validator: (args) => validateCancel(home.status().running?.cycleId, args),
  });
  setHandler(rewindUpdate, (args) => home.rewind(args), { validator: (args) => validateRewind(home.status(), args) });
  setHandler(waitForCycleUpdate, (args) => waitForCycle(home, args), {
    validator: (args) => validateWaitForCycle(home, args),
  });
  setHandler(wakeSignal, (args) => home.wake(args));
  setHandler(replySignal, (args) => home.reply(args));
  setHandler(directiveSignal, (text) => home.directive(text));
}

/**
 * The durable home of one agent, holding its active scratchpad (design.md, The agent's home): runs its cycles one at
 * a time as child `agentCycle` workflows, each fed the previous after-state, and continues-as-new with its memory.
 */
export async function agent(rawInput: AgentInput): Promise<void> {
  const input = parseWorkflowInput(AgentInputSchema(), rawInput, AgentError.BadInput, 'agent input');
  const home = new AgentHome(input);
  registerHandlers(home);
  const approvals = registerApprovals(input.agentId, () => home.status());
  home.start(input.handover?.pendingWake ?? false);
  for (;;) {
    await condition(() => home.hasQueuedWork() || home.shouldContinueAsNew());
    if (home.shouldContinueAsNew() && home.queue.canHandOver()) {
      // Waiting updates must get their answers before this run ends.
      await condition(() => allHandlersFinished() || !home.queue.canHandOver());
      if (home.queue.canHandOver()) await continueAsNew<typeof agent>(home.handover());
    }
    await home.runNext((wait) => approvals.receive(wait));
    approvals.cycleEnded();
  }
}
