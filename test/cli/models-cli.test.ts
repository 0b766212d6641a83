import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BackgroundCli, runCli } from '../helpers/cli';

let home: string;
let worker: BackgroundCli | undefined;
const taskQueue = `models-cli-${process.pid}-${Date.now()}`;

jest.setTimeout(120_000);

async function script(name: string, lines: object[]): Promise<string> {
  const file = path.join(home, `${name}.jsonl`);
  await fs.writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  return `scripted:${file}`;
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'scratchpad-models-cli-'));
});
afterAll(async () => {
  await worker?.stop();
});

describe('scratchpad worker --models', () => {
  it('refuses an entry that is neither a spec nor a wildcard, as --models and as SCRATCHPAD_MODELS', async () => {
    const place = { home, taskQueue: `${taskQueue}-refused` };
    const flag = await runCli(['worker', '--models', 'anthropic:*,claude-*'], place);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^scratchpad: --models: "claude-\*" is not a model spec [^\n]*\n$/);
    const variable = await runCli(['worker'], { ...place, env: { SCRATCHPAD_MODELS: 'anthropic:claude-*' } });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toContain('SCRATCHPAD_MODELS');
    expect(variable.stderr).toContain('a wildcard stands only for a whole spec');
  });

  it('a running worker serves the models it names, and fails a cycle naming another with one line', async () => {
    const own = await script('own', [{ tool: 'done', args: { summary: 'default unused' } }]);
    const listed = await script('listed', [{ tool: 'done', args: { summary: 'listed model ran' } }]);
    const other = await script('other', [{ tool: 'done', args: { summary: 'never read' } }]);
    worker = BackgroundCli.start(['worker', '--models', listed], { home, taskQueue, env: { SCRATCHPAD_MODEL: own } });
    await worker.waitForStderr(/Worker polling/, 60_000);
    const agent = `models-cli-${Date.now()}`;
    const cycle = (model: string) =>
      runCli(['cycle', '--agent', agent, '--task', 'finish', '--model', model], { home, taskQueue, timeoutMs: 60_000 });

    const served = await cycle(listed);
    expect(served.stderr).not.toContain('running one in this process');
    expect(served.code).toBe(0);
    expect(served.stdout).toContain('completed after 1 iteration(s)');
    const refused = await cycle(other);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain(
      `Error: ModelError.NotAllowed: model "${other}" is not allowed on this worker: allowed are ${own}, ${listed}; ` +
        'add it to SCRATCHPAD_MODELS',
    );
  });
});
