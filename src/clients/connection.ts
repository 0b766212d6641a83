import { Client, Connection } from '@temporalio/client';
import { encryptionDataConverter } from '../common/encryption-codec';
import { parseCycleWorkflowId } from '../common/ids';
import type { Config } from '../config';
import type { CycleResult } from '../core/cycle/input';
import type { Scratchpad } from '../core/scratchpad/scratchpad';

/** Connects to the configured Temporal frontend (address, TLS, API key: see `config/temporal.ts`). */
export async function connectClient(
  config: Pick<Config, 'temporal' | 'TEMPORAL_NAMESPACE' | 'encryptionKeys'>,
): Promise<Client> {
  const connection = await Connection.connect({ ...config.temporal, connectTimeout: '5s' });
  // With encryption configured, everything this client writes is ciphertext and everything it reads is decrypted.
  const dataConverter = encryptionDataConverter(config.encryptionKeys);
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export interface CycleSummary {
  workflowId: string;
  runId: string;
  n: number;
  status: string;
  startTime: Date;
  closeTime?: Date;
}

/** Every cycle of an agent known to visibility, oldest first. */
export async function listCycles(client: Client, agentId: string): Promise<CycleSummary[]> {
  const cycles: CycleSummary[] = [];
  const query = `WorkflowType = 'agentCycle' AND AgentId = ${quote(agentId)}`;
  for await (const execution of client.workflow.list({ query })) {
    const parsed = parseCycleWorkflowId(execution.workflowId);
    if (!parsed || parsed.agentId !== agentId) continue;
    cycles.push({
      workflowId: execution.workflowId,
      runId: execution.runId,
      n: parsed.n,
      status: execution.status.name,
      startTime: execution.startTime,
      closeTime: execution.closeTime,
    });
  }
  return cycles.sort((a, b) => a.n - b.n || a.startTime.getTime() - b.startTime.getTime());
}

/**
 * The agent's active scratchpad (seed 000's `active.yaml`): the after-state of its latest completed
 * cycle with `last_updated` stamped at the time that cycle closed, or undefined for a new agent.
 */
export async function activeScratchpad(
  client: Client,
  agentId: string,
): Promise<{ state: Scratchpad; cycle: CycleSummary } | undefined> {
  const completed = (await listCycles(client, agentId)).filter((cycle) => cycle.status === 'COMPLETED');
  const latest = completed.at(-1);
  if (!latest) return undefined;
  const result: CycleResult = await client.workflow.getHandle(latest.workflowId, latest.runId).result();
  const stamp = (latest.closeTime ?? new Date()).toISOString();
  return { state: { ...result.after, last_updated: stamp }, cycle: latest };
}
