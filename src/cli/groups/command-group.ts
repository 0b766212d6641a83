import type { CommandModule } from '../command';

/**
 * One command as the program lists it before any command's module is loaded. Its module declares the rest (arguments,
 * options, help, action) and is imported only when the command runs or its help is asked for, so the program starts
 * without the code, and the Temporal SDK, of commands it does not run.
 */
export interface CommandEntry {
  name: string;
  description: string;
  /** What a listing shows after the name: `[options]` and the arguments, as the module declares them. */
  usage?: string;
  load?: () => Promise<CommandModule>;
  subcommands?: readonly CommandEntry[];
}

/** An entry with a module. */
export function command(
  name: string,
  usage: string,
  description: string,
  load: () => Promise<CommandModule>,
): CommandEntry {
  return { name, description, ...(usage && { usage }), load };
}
