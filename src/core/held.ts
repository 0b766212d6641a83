/**
 * A value exported through a function. A worker shares the modules of its workflows among all their executions
 * (config/paths.ts) and deep-freezes everything those modules export; zod builds members on its schema instances on
 * first use, which a frozen schema refuses. A function is frozen without its closure, so a schema exported this way
 * is built once, at load, and stays usable. test/unit/shared-modules.test.ts keeps schemas from being exported bare.
 */
export function held<T>(value: T): () => T {
  return () => value;
}
