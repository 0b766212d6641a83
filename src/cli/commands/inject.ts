import { SECTION_KEYS, isSectionKey } from '../../core/scratchpad/scratchpad';
import { withAgent } from '../agent-access';
import { defineCommand } from '../command';
import { CliError, EXIT } from '../errors';
import { WORKER_MODEL } from '../options';

/** A scratchpad value as people read it: text as is (indented when it has several lines), lists one item a line. */
function valueLines(value: unknown): string {
  if (value === null || value === undefined || value === '') return ' (empty)';
  if (Array.isArray(value))
    return value.length === 0 ? ' (empty)' : value.map((item) => `\n  - ${String(item)}`).join('');
  const text = String(value);
  return text.includes('\n')
    ? text
        .split('\n')
        .map((line) => `\n  ${line}`)
        .join('')
    : ` ${text}`;
}

/** `scratchpad inject AGENT SECTION TEXT`: one update key through safe apply; prints the section as it now is. */
export default defineCommand(
  (command) =>
    command
      .argument('<agent>', 'agent id')
      .option(...WORKER_MODEL)
      .argument('<section>', 'update key, e.g. identity_user, understanding_known, workspace')
      .argument('<text>', 'content'),
  async (agentId, section, content, options) => {
    const value = await withAgent(agentId, options.model, async (agents, target) => {
      const answer = await agents.inject(target, { section: section as never, content });
      // Validated against the state of the moment; a cycle that ran before it applied may have made it inapplicable.
      if (answer.startsWith('not applied:')) throw new CliError(answer, EXIT.usage);
      const state = (await agents.scratchpad(agentId)) as unknown as Record<string, Record<string, unknown>>;
      if (!isSectionKey(section)) return state[section];
      const [part, key] = SECTION_KEYS[section] as readonly string[];
      return key === undefined ? state[part!] : state[part!]?.[key];
    });
    process.stdout.write(`${section}:${valueLines(value)}\n`);
    return EXIT.ok;
  },
);
