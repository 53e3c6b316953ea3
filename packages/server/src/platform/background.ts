/**
 * Long-running loops a process starts beside its job workers (the webhook dispatcher). Each registers how
 * to stop it; `closeDeps` stops them before the job queue and the database close under them.
 */
export class Background {
  private readonly stoppers: (() => Promise<void>)[] = [];
  private closed = false;

  get isClosed(): boolean {
    return this.closed;
  }

  add(stop: () => Promise<void>): void {
    this.stoppers.push(stop);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.stoppers.splice(0).map((stop) => stop()));
  }
}
