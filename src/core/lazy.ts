/**
 * A record of functions, each building its value on the first call and returning the same value from then on. Keys,
 * `Object.hasOwn` and `Object.keys` see every entry from the start. Functions rather than lazy properties, because a
 * worker deep-freezes the exports of the modules its workflows share (held.ts): reading a property to freeze it would
 * build every value, and freeze a zod schema.
 */
export function lazyAccessors<T extends Record<string, () => unknown>>(
  builders: T,
): { readonly [K in keyof T]: () => ReturnType<T[K]> } {
  const record = {} as { [K in keyof T]: () => ReturnType<T[K]> };
  for (const key of Object.keys(builders) as (keyof T & string)[]) {
    let built: { value: ReturnType<T[typeof key]> } | undefined;
    record[key] = () => (built ??= { value: builders[key]!() as ReturnType<T[typeof key]> }).value;
  }
  return record;
}
