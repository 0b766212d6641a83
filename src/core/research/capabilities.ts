/**
 * Writers prove who they are (design.md): each worker gets a capability token when it starts, made in the
 * supervisor's workflow code, and its writes must present it. Tokens travel only in payloads (the worker's input,
 * its writes, a continue-as-new's handover), which the payload codec encrypts; nothing here prints one.
 */
export class CapabilityTokens {
  private readonly byWorker: Map<string, string>;

  constructor(handed?: Readonly<Record<string, string>>) {
    this.byWorker = new Map(Object.entries(handed ?? {}));
  }

  /** Records `token` as `workerId`'s and returns it. */
  issue(workerId: string, token: string): string {
    this.byWorker.set(workerId, token);
    return token;
  }

  /** The token `workerId`'s writes must present; undefined for a worker started before tokens existed. */
  of(workerId: string): string | undefined {
    return this.byWorker.get(workerId);
  }

  /** The tokens of the workers still running, for the next run after a continue-as-new; undefined when none. */
  handover(active: ReadonlySet<string>): Record<string, string> | undefined {
    const kept = [...this.byWorker].filter(([workerId]) => active.has(workerId));
    return kept.length > 0 ? Object.fromEntries(kept) : undefined;
  }
}
