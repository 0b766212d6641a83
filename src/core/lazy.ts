/**
 * An object whose properties are built on first read and kept from then on. Keys, `Object.hasOwn` and `Object.keys`
 * see every property from the start, so it reads like a plain object of the built values.
 */
export function lazyRecord<T extends Record<string, () => unknown>>(
  builders: T,
): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const record = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(builders) as (keyof T & string)[]) {
    Object.defineProperty(record, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[key]!();
        Object.defineProperty(record, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return record;
}
