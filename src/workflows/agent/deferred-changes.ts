import { condition } from '@temporalio/workflow';

/**
 * Changes to the agent's scratchpad and queue requested while a cycle runs: they wait for its result, or the
 * result would overwrite them, and are applied in the order they came once it is adopted.
 */
export class DeferredChanges {
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly isCycleRunning: () => boolean,
    /** Publishes the scratchpad after a change applied at once. */
    private readonly persist: () => void,
  ) {}

  /** Applies `change` now when no cycle runs, else once the running cycle's result is adopted. */
  apply(change: () => void): void {
    if (this.isCycleRunning()) {
      this.waiting.push(change);
      return;
    }
    change();
    this.persist();
  }

  /** Like `apply`, for a caller that waits for the change's answer. */
  async applied<T>(change: () => T): Promise<T> {
    let result: { value: T } | undefined;
    this.apply(() => (result = { value: change() }));
    await condition(() => result !== undefined);
    return (result as { value: T }).value;
  }

  /** Applies every change that waited for the cycle that just ended; the caller publishes the result. */
  release(): void {
    for (const change of this.waiting.splice(0)) change();
  }
}
