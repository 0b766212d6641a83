import type { Command } from 'commander';

/** A command's action: resolves to the process exit code. */
export type CommandAction = (...args: never[]) => Promise<number>;

/** The exports of a module that are command actions. */
type ActionNames<Module> = { [Name in keyof Module]: Module[Name] extends CommandAction ? Name : never }[keyof Module];

/**
 * The commander action that runs the command `name` of the module `load` imports. The module is imported only when
 * its command runs, so the program starts without loading the code (and the Temporal SDK) of commands it does not run.
 */
export type LazyAction = <Module, Name extends ActionNames<Module>>(
  load: () => Promise<Module>,
  name: Name,
) => (...args: unknown[]) => Promise<void>;

/**
 * Adds one group of commands to the program: names, arguments, options and help, with every action a
 * {@link LazyAction}. A group's module imports only commander and option parsers.
 */
export type CommandGroup = (program: Command, action: LazyAction) => void;
