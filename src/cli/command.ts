import type { Command, OptionValues } from '@commander-js/extra-typings';

/** A command's module, loaded only when that command runs (or its help is asked for). */
export interface CommandModule {
  default: CommandDefinition;
}

/** Declares a command's arguments, options and help on it, with the action that runs it. */
export interface CommandDefinition {
  attach(command: Command, setExitCode: (code: number) => void): void;
}

/**
 * A command whose action is typed from its declaration: `declare` adds the arguments, options and help to the command
 * the program made for it (name and description come from the listing in ./groups), and `run` receives the parsed
 * arguments and options and resolves to the exit code.
 */
export function defineCommand<Args extends unknown[], Options extends OptionValues>(
  declare: (command: Command) => Command<Args, Options>,
  run: (...args: [...Args, Options]) => Promise<number>,
): CommandDefinition {
  return {
    attach(command, setExitCode) {
      declare(command).action(async (...args) => {
        // Commander passes the command itself last.
        setExitCode(await run(...(args.slice(0, -1) as [...Args, Options])));
      });
    },
  };
}

/** The parsed options of a command `declare` declares: for the helpers of its action. */
export type OptionsOf<Declare extends (command: Command) => { opts(): OptionValues }> = ReturnType<
  ReturnType<Declare>['opts']
>;
