import * as fs from 'node:fs';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { agentWorkflowId, parseAgentScheduleId } from '../common/ids';
import { listExecutions, visibilityString } from './visibility';

/** What {@link endAgent} ended: workflow ids terminated, schedule ids deleted. */
export interface EndedAgent {
  terminated: string[];
  schedules: string[];
}

/**
 * Ends an agent: deletes its schedules (which would start it again), then terminates, with `reason`, its agent
 * workflow and every other running workflow that carries its id (cycles, sub-agents, staged runs). The agent goes
 * first, so it does not react to its cycles ending. Histories stay, as Temporal keeps them for the retention period.
 */
export async function endAgent(client: Client, agentId: string, reason: string): Promise<EndedAgent> {
  const schedules: string[] = [];
  for await (const summary of client.schedule.list()) {
    if (parseAgentScheduleId(summary.scheduleId)?.agentId !== agentId) continue;
    await client.schedule.getHandle(summary.scheduleId).delete();
    schedules.push(summary.scheduleId);
  }
  const query = `AgentId = ${visibilityString(agentId)} AND ExecutionStatus = 'Running'`;
  const running: string[] = [];
  for (const execution of await listExecutions(client, query)) running.push(execution.workflowId);
  const home = agentWorkflowId(agentId);
  const order = [...new Set([home, ...running.sort()])];
  const terminated: string[] = [];
  for (const workflowId of order) {
    try {
      await client.workflow.getHandle(workflowId).terminate(reason);
      terminated.push(workflowId);
    } catch (error) {
      // Not running (any more): ended with its parent, or closed between the listing and now.
      if (error instanceof WorkflowNotFoundError) continue;
      throw error;
    }
  }
  return { terminated, schedules: schedules.sort() };
}

/**
 * The prefixes of the observation-store keys (`turnId`s) an agent's workflows write under: its cycles and their
 * sub-agents, its staged runs' stages and files.
 */
export function agentTurnPrefixes(agentId: string): string[] {
  return [`${agentWorkflowId(agentId)}/`, `staged/${agentId}/`];
}

/**
 * Deletes an agent's stored observations from the store `spec` names (`SCRATCHPAD_OBSERVATIONS`: a SQLite file, or
 * `redis://…` with the store's key prefix): entries its workflows stored, and archives that name it. Returns how
 * many; a SQLite file that does not exist holds none and is not created.
 */
export async function purgeObservations(spec: string, agentId: string): Promise<number> {
  const prefixes = agentTurnPrefixes(agentId);
  if (/^rediss?:\/\//i.test(spec)) return purgeRedis(spec, prefixes);
  const file = spec.replace(/^sqlite:(\/\/)?/i, '');
  if (!fs.existsSync(file)) return 0;
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const byPrefix = prefixes.map(() => 'substr(turn_id, 1, length(?)) = ?').join(' OR ');
    const statement = db.prepare(`DELETE FROM entries WHERE agent_id = ? OR ${byPrefix}`);
    return statement.run(agentId, ...prefixes.flatMap((prefix) => [prefix, prefix])).changes;
  } finally {
    db.close();
  }
}

/** The Redis store's layout (activities/observations/redis-store.ts): `entry:<id>`, `content:<id>`, `turn:<turnId>`. */
const REDIS_PREFIX = 'scratchpad:observations:';

async function purgeRedis(url: string, prefixes: string[]): Promise<number> {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let removed = 0;
    for (const prefix of prefixes) {
      // Agent ids hold no glob characters (common/ids.ts), so the pattern matches the prefix literally.
      const turns: string[] = [];
      const stream = redis.scanStream({ match: `${REDIS_PREFIX}turn:${prefix}*`, count: 500 });
      for await (const keys of stream) turns.push(...(keys as string[]));
      for (const turn of turns) {
        const ids = Object.values(await redis.hgetall(turn));
        const transaction = redis.multi();
        for (const id of ids) {
          transaction.del(`${REDIS_PREFIX}entry:${id}`, `${REDIS_PREFIX}content:${id}`);
          transaction.zrem(`${REDIS_PREFIX}expiries`, id);
        }
        await transaction.del(turn).exec();
        removed += ids.length;
      }
    }
    return removed;
  } finally {
    redis.disconnect();
  }
}
