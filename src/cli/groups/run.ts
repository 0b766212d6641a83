/** Wraps a command action so the exit code it resolves to reaches the program. */
export type Run = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

/** Commander accumulator for repeatable options such as `--task`. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
