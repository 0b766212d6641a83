import { ScheduleNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { updateAgent } from '../../src/clients/agents';
import type { CycleRecord } from '../../src/core/agent/agent';
import { CliError, EXIT } from '../../src/cli/errors';
import { buildProgram } from '../../src/cli/main';
import { type AgentScheduleInfo, createAgentSchedule, listAgentSchedules } from '../../src/clients/schedules';
import { cyclesQuery, scratchpadQuery, sendUpdate, statusQuery } from '../../src/common/messages/agent';
import { testEnvironment, testServerAddress, uniqueId, waitFor } from '../helpers/temporal';
import { bundleWorkflows, scriptedWorker } from '../helpers/worker';
import { agentWorkflowId } from '../../src/common/ids';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;
const createdSchedules: string[] = [];

beforeAll(async () => {
  env = await testEnvironment();
  bundle = await bundleWorkflows();
});

afterAll(async () => {
  for (const scheduleId of createdSchedules) {
    await env.client.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined);
  }
  await env?.teardown();
});

function newAgentId(): string {
  return uniqueId('schedule-test');
}

describe('schedules', () => {
  it('fire task cycles in the agent’s own memory; pause stops them, trigger fires now, delete removes', async () => {
    const done = Array.from({ length: 40 }, (_, index) => ({
      tool: 'done',
      args: { summary: `inbox checked ${index + 1}` },
    }));
    const { worker, taskQueue, model } = await scriptedWorker(
      env,
      bundle,
      [
        { text: 'Noted.' },
        { tool: 'update_scratchpad', args: { understanding_known: '- the inbox lives at /srv/mail' } },
        ...done,
      ],
      'schedule',
      {},
      { client: env.client },
    );
    const agentId = newAgentId();
    const agent = env.client.workflow.getHandle(agentWorkflowId(agentId));
    const scheduledCycles = async () =>
      (await agent.query(cyclesQuery)).filter((cycle: CycleRecord) => cycle.trigger === 'schedule');

    await worker.runUntil(async () => {
      await updateAgent(env.client, { agentId, taskQueue }, sendUpdate, [{ message: 'My inbox is at /srv/mail.' }]);
      const description = await createAgentSchedule(env.client, {
        agentId,
        taskQueue,
        name: 'inbox',
        timing: { every: 2000 },
        tasks: ['Check the inbox'],
      });
      const scheduleId = `agent/${agentId}/schedule/inbox`;
      createdSchedules.push(scheduleId);
      expect(description.policies.overlap).toBe('SKIP');
      const schedule = env.client.schedule.getHandle(scheduleId);

      const fired = await waitFor(scheduledCycles, (cycles) => cycles.length >= 2);
      expect(fired.every((cycle) => cycle.outcome === 'completed')).toBe(true);
      const scratchpad = await agent.query(scratchpadQuery);
      expect(scratchpad.understanding.known).toContain('/srv/mail');
      expect(scratchpad.completed_tasks.slice(0, 2)).toEqual([
        { task: 'Check the inbox', summary: 'inbox checked 1' },
        { task: 'Check the inbox', summary: 'inbox checked 2' },
      ]);
      // The scheduled cycle's prompt is built from the memory the chat turn wrote.
      const firstScheduled = JSON.stringify(model.requests[2]?.messages);
      expect(firstScheduled).toContain('/srv/mail');
      expect(firstScheduled).toContain('Check the inbox');

      await schedule.pause('test pause');
      // Let a wake that fired just before the pause finish its cycle.
      await waitFor(async () => {
        const [{ info }, status] = await Promise.all([schedule.describe(), agent.query(statusQuery)]);
        return info.runningActions.length === 0 && status.running === null && status.queued === 0;
      });
      const whilePaused = (await scheduledCycles()).length;
      const actionsWhilePaused = (await schedule.describe()).info.numActionsTaken;
      // Time passing is what this tests: a paused schedule fires nothing (it would have fired twice by now).
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect((await scheduledCycles()).length).toBe(whilePaused);
      expect((await schedule.describe()).info.numActionsTaken).toBe(actionsWhilePaused);
      const [listed] = await listAgentSchedules(env.client, agentId);
      expect(listed).toMatchObject<Partial<AgentScheduleInfo>>({ scheduleId, paused: true, note: 'test pause' });

      const triggeredAt = Date.now();
      await schedule.trigger();
      await waitFor(scheduledCycles, (cycles) => cycles.length === whilePaused + 1, 10_000);
      expect(Date.now() - triggeredAt).toBeLessThan(10_000);

      await schedule.delete();
      await expect(schedule.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      expect(await listAgentSchedules(env.client, agentId)).toEqual([]);
    });
  }, 90_000);
});

describe('schedule command', () => {
  /** Runs `scratchpad schedule ARGS` through the real program, reporting errors as `main` does. */
  async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
    let code: number = EXIT.ok;
    try {
      await buildProgram((value) => (code = value)).parseAsync(['node', 'scratchpad', 'schedule', ...args]);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      stderr.push(`scratchpad: ${error.message}\n`);
      code = error.exitCode;
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  }

  beforeAll(() => {
    process.env.TEMPORAL_ADDRESS = testServerAddress();
    process.env.SCRATCHPAD_TASK_QUEUE = `schedule-cli-${process.pid}`;
  });

  it.each([
    [['create', 'a1', '--every', '5m', '--cron', '* * * * *'], /either --every or --cron, not both/],
    [['create', 'a1'], /give --every DURATION .* or --cron EXPR/],
    [['create', 'a1', '--every', '5 minutes'], /invalid --every "5 minutes": expected a duration like 30s/],
    [['create', 'a1', '--every', '0s'], /invalid --every "0s"/],
    [['create', 'a1', '--every', '500ms'], /at least 1s/],
    [['create', 'not an id', '--every', '5m'], /invalid agent id "not an id"/],
    [['create', 'a1', '--every', '5m', '--name', 'a/b'], /invalid --name "a\/b"/],
    [['create', 'a1', '--cron', 'every day'], /invalid --cron "every day"/],
    [['pause', 'a1'], /invalid schedule id "a1": expected agent\/<agentId>\/schedule\/<name>/],
  ])('refuses %j with a clear message', async (args, message) => {
    const result = await run(...args);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(message);
  });

  it('creates, lists, pauses and deletes a schedule', async () => {
    const agentId = newAgentId();
    const scheduleId = `agent/${agentId}/schedule/nightly`;
    createdSchedules.push(scheduleId);
    const created = await run('create', agentId, '--cron', '0 2 * * *', '--task', 'Tidy notes', '--name', 'nightly');
    expect(created).toMatchObject({ code: EXIT.ok });
    expect(created.stdout).toContain(scheduleId);
    expect(created.stdout).toContain('cron 0 2 * * *, tasks: "Tidy notes"');
    expect((await run('create', agentId, '--every', '1h', '--name', 'nightly')).stderr).toMatch(/already exists/);

    expect(await run('pause', scheduleId, '--note', 'on holiday')).toMatchObject({ code: EXIT.ok });
    const listed = JSON.parse((await run('list', agentId, '--json')).stdout) as AgentScheduleInfo[];
    expect(listed).toEqual([
      expect.objectContaining({ scheduleId, agentId, spec: 'cron 0 2 * * *', tasks: ['Tidy notes'], paused: true }),
    ]);
    expect((await run('list', agentId)).stdout).toContain('paused:  yes (on holiday)');

    expect(await run('delete', scheduleId)).toMatchObject({ code: EXIT.ok });
    expect((await run('list', agentId)).stdout).toBe(`No schedules for agent "${agentId}".\n`);
    expect(await run('delete', scheduleId)).toMatchObject({
      code: EXIT.error,
      stderr: `scratchpad: no schedule "${scheduleId}"\n`,
    });
  });
});
