// The client API: talk to agents, read what they remember, decide the tool calls they wait on, run a staged task.
// Every call goes through a facade over a Temporal client; none needs this process to run a worker.
//
//   npx scratchpad up                 (a dev server and a worker in the background)
//   npx ts-node examples/client.ts    (TEMPORAL_ADDRESS and SCRATCHPAD_TASK_QUEUE name others)
//
// test/examples/client.test.ts runs each function against a dev server and a scripted worker.
import type { Client } from '@temporalio/client';
import {
  type AgentTarget,
  Agents,
  Approvals,
  type Decision,
  type StagedResult,
  StagedRuns,
  connectClient,
  renderMarkdown,
} from 'durable-scratchpad';

/**
 * One chat turn, then the memory it left. `send` answers as soon as the reply is written; the agent reflects (curates
 * its scratchpad) after, so read once `waitForCycle` says the agent has adopted that cycle.
 */
export async function chat(client: Client, target: AgentTarget, message: string) {
  const agents = new Agents(client);
  const { reply, cycleId } = await agents.send(target, { message });
  await agents.waitForCycle(target, cycleId);
  const memory = await agents.scratchpad(target.agentId);
  return { reply, cycleId, memory };
}

/**
 * One chat turn streamed: the reply's text as the model writes it (`write` hears each piece), tool calls as they run;
 * `result` is what `send` would have answered. A reader that reconnects picks up with `agents.resume(cycleId, { from })`.
 */
export async function streamChat(client: Client, target: AgentTarget, message: string, write: (text: string) => void) {
  const agents = new Agents(client);
  const turn = agents.stream(target, { message });
  for await (const event of turn) {
    if (event.type === 'text') write(event.text);
    else if (event.type === 'tool' && event.phase === 'start') write(`\n[${event.name}]\n`);
  }
  return turn.result;
}

/** Tasks for the agent, one task cycle that works on them, and the agent's own record of its cycles. */
export async function runTasks(client: Client, target: AgentTarget, tasks: string[]) {
  const agents = new Agents(client);
  const cycle = await agents.runCycle(target, { tasks });
  const status = await agents.status(target.agentId);
  return { cycle, cycleCount: status.cycleCount, completed: (await agents.scratchpad(target.agentId)).completed_tasks };
}

/** Every tool call the agent waits on for a person's decision, approved (`scratchpad approvals` does the same). */
export async function approveAll(client: Client, agentId: string, by: string): Promise<Decision[]> {
  const approvals = new Approvals(client);
  const decisions: Decision[] = [];
  for (const call of await approvals.list(agentId)) {
    decisions.push(await approvals.decide(call.target, { decision: 'approve', by }));
  }
  return decisions;
}

/** A staged run (plan, stages with fresh context, a verification command) and its result. */
export async function stagedTask(client: Client, taskQueue: string, agentId: string): Promise<StagedResult> {
  const runs = new StagedRuns(client);
  const handle = await runs.start(
    { agentId, task: 'Write notes.txt saying hello', staged: false, verify: 'cat notes.txt' },
    { taskQueue },
  );
  return runs.result(handle.workflowId);
}

async function main(): Promise<void> {
  // The environment's server, namespace, TLS and API key, as the Temporal CLI reads them.
  const client = await connectClient();
  const target = { agentId: 'example', taskQueue: process.env.SCRATCHPAD_TASK_QUEUE ?? 'scratchpad' };
  const { reply, memory } = await chat(client, target, 'Hello! My name is Ada.');
  console.log(reply);
  console.log(renderMarkdown(memory));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
