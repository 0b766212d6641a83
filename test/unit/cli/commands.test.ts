import { Command, Help } from '@commander-js/extra-typings';
import { buildProgram } from '../../../src/cli/main';
import { AGENT_COMMANDS } from '../../../src/cli/groups/agent';
import type { CommandEntry } from '../../../src/cli/groups/command-group';
import { CYCLE_COMMANDS } from '../../../src/cli/groups/cycles';
import {
  APPROVAL_COMMANDS,
  CODEC_SERVER_COMMANDS,
  RESEARCH_COMMANDS,
  SCHEDULE_COMMANDS,
  STAGED_COMMANDS,
} from '../../../src/cli/groups/other';
import { SERVER_COMMANDS } from '../../../src/cli/groups/server';

const GROUPS = [
  SERVER_COMMANDS,
  CYCLE_COMMANDS,
  AGENT_COMMANDS,
  APPROVAL_COMMANDS,
  STAGED_COMMANDS,
  RESEARCH_COMMANDS,
  CODEC_SERVER_COMMANDS,
  SCHEDULE_COMMANDS,
];

/** Every entry with a module, by its full name (`schedule create`). */
function loadable(entries: readonly CommandEntry[], prefix = ''): [string, CommandEntry][] {
  return entries.flatMap((entry) => [
    ...(entry.load ? [[`${prefix}${entry.name}`, entry] as [string, CommandEntry]] : []),
    ...loadable(entry.subcommands ?? [], `${prefix}${entry.name} `),
  ]);
}

/** What `argv` prints on stdout, the program's exit code set aside. */
async function printed(argv: string[]): Promise<string> {
  let out = '';
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await buildProgram(() => undefined)
      .parseAsync(['node', 'scratchpad', ...argv])
      .catch(() => undefined);
  } finally {
    write.mockRestore();
  }
  return out;
}

describe('the command listing and the command modules', () => {
  const entries = GROUPS.flatMap((group) => loadable(group));

  it('lists each command with the usage its module declares', async () => {
    expect(entries.length).toBeGreaterThan(45);
    for (const [name, entry] of entries) {
      const command = new Command(entry.name);
      (await entry.load!()).default.attach(command, () => undefined);
      const declared = new Help().subcommandTerm(command);
      expect({ name, term: [entry.name, entry.usage].filter(Boolean).join(' ') }).toEqual({ name, term: declared });
    }
  });

  it("loads a command's module for its help, asked either way", async () => {
    for (const argv of [
      ['send', '--help'],
      ['help', 'send'],
    ]) {
      const help = await printed(argv);
      expect(help).toContain('Usage: scratchpad send [options] <agent> <text>');
      expect(help).toMatch(/^ {2}--model <spec> +a chat turn's model/m);
      expect(help).toMatch(/^ {2}--json +print reply, cycle id and outcome as JSON/m);
    }
    const nested = await printed(['schedule', 'pause', '--help']);
    expect(nested).toContain('Usage: scratchpad schedule pause [options] <id>');
    expect(nested).toMatch(/^ {2}--note <text> +why/m);
  });

  it('refuses an option a command does not declare, as a usage error', async () => {
    const run = buildProgram(() => undefined)
      .configureOutput({ writeErr: () => undefined })
      .parseAsync(['node', 'scratchpad', 'status', 'ada', '--frobnicate']);
    await expect(run).rejects.toMatchObject({ code: 'commander.unknownOption' });
  });
});
