import type { Client } from '@temporalio/client';
import { Agents } from '../clients/agents';
import { Approvals } from '../clients/approvals';
import { readAgent } from '../clients/agent-overview';
import { forkAgent, rewindAgent } from '../clients/time-travel';
import { parseCycleWorkflowId } from '../common/ids';
import { hasPollers } from '../clients/task-queues';
import { BadRequest, NotFound } from './errors';
import { segment } from './html';

/** Who the console's decisions and rewinds are recorded as. */
const BY = 'console';

function field(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (value === null || value.trim() === '') throw new BadRequest(`the form lacks "${name}"`);
  return value;
}

function confirmed(form: URLSearchParams): void {
  if (form.get('confirm') !== 'yes') throw new BadRequest('tick "I mean it" to confirm');
}

/** An agent that exists and a worker polling its task queue: what an action that runs the agent needs. */
async function liveTarget(client: Client, agentId: string) {
  const agent = await readAgent(client, agentId);
  if (!agent) throw new NotFound(`no agent "${agentId}"`);
  if (!(await hasPollers(client, agent.taskQueue))) {
    throw new BadRequest(
      `no worker polls task queue "${agent.taskQueue}": start one (scratchpad worker) and try again`,
    );
  }
  return { agentId, taskQueue: agent.taskQueue };
}

/** One posted action on an agent; returns where the browser goes next. */
export async function agentAction(
  client: Client,
  agentId: string,
  action: string,
  form: URLSearchParams,
): Promise<string> {
  const agents = new Agents(client);
  const page = `/agents/${segment(agentId)}`;
  const target = await liveTarget(client, agentId);
  switch (action) {
    case 'send': {
      // To the turn's live page, which shows the reply as it is written.
      const cycleId = await agents.startTurn(target, { message: field(form, 'message') });
      const n = parseCycleWorkflowId(cycleId)?.n;
      return n === undefined ? page : `${page}/cycles/${n}/live`;
    }
    case 'directive':
      await agents.directive(target, field(form, 'text'));
      return page;
    case 'inject':
      await agents.inject(target, { section: field(form, 'section'), content: form.get('content') ?? '' });
      return page;
    case 'fork': {
      confirmed(form);
      const fork = await forkAgent(client, { agentId, at: cycleRef(field(form, 'cycle')), as: field(form, 'as') });
      return `/agents/${segment(fork.agentId)}`;
    }
    case 'rewind':
      confirmed(form);
      await rewindAgent(agents, target, cycleRef(field(form, 'cycle')), BY);
      return page;
    default:
      throw new NotFound(`no action "${action}"`);
  }
}

function cycleRef(text: string): number | string {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim();
}

/** A decision on a waiting call: Approve (with edited arguments, when given) or Deny with a reason. */
export async function decideAction(client: Client, form: URLSearchParams): Promise<string> {
  const decision = field(form, 'decision');
  if (decision !== 'approve' && decision !== 'deny') throw new BadRequest(`unknown decision "${decision}"`);
  const args = form.get('args');
  let edited: Record<string, unknown> | undefined;
  if (decision === 'approve' && args !== null && args.trim() !== '') {
    try {
      edited = JSON.parse(args) as Record<string, unknown>;
    } catch {
      throw new BadRequest('the edited arguments are not JSON');
    }
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
      throw new BadRequest('the edited arguments must be a JSON object');
    }
  }
  await new Approvals(client).decide(field(form, 'target'), {
    callId: field(form, 'callId'),
    decision,
    by: BY,
    ...(decision === 'deny' && { reason: field(form, 'reason') }),
    ...(edited && { args: edited }),
  });
  return `/approvals?decided=${encodeURIComponent(field(form, 'callId'))}`;
}
