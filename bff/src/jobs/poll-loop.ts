// A background job's heartbeat: run one pass, wait, run the next, until stopped. Passes never
// overlap, a failed pass is reported and the loop goes on, and the timer never keeps the process
// alive on its own. Work shared between instances is claimed with database leases by the pass.
export class PollLoop {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(
    private readonly intervalMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#arm();
  }

  /** Stops arming new passes and waits for the one under way, if any. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.pass()
        .catch(this.onError)
        .finally(() => {
          this.#arm();
        });
    }, this.intervalMs);
    this.#timer.unref();
  }
}
