/**
 * A getter of `value`, for a module to export it through. A worker shares the modules of its workflows among all
 * their executions (config/paths.ts) and deep-freezes everything those modules export; zod builds members on its
 * schema instances on first use, which a frozen schema refuses. A function is frozen without its closure, so a
 * schema exported this way is built once, at load, and stays usable. test/unit/config/shared-modules.test.ts keeps schemas
 * from being exported bare.
 */
export function getterOf<T>(value: T): () => T {
  return () => value;
}

/**
 * A record of functions, each building its value on the first call and returning the same value from then on. Keys,
 * `Object.hasOwn` and `Object.keys` see every entry from the start. Functions rather than lazy properties, because a
 * worker deep-freezes the exports of the modules its workflows share: reading a property to freeze it would
 * build every value, and freeze a zod schema.
 */
export function builtOnFirstCall<T extends Record<string, () => unknown>>(
  builders: T,
): { readonly [K in keyof T]: () => ReturnType<T[K]> } {
  const record = {} as { [K in keyof T]: () => ReturnType<T[K]> };
  for (const key of Object.keys(builders) as (keyof T & string)[]) {
    let built: { value: ReturnType<T[typeof key]> } | undefined;
    record[key] = () => (built ??= { value: builders[key]!() as ReturnType<T[typeof key]> }).value;
  }
  return record;
}
