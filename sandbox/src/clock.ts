// The sandbox clock: real time plus an offset that /sandbox/clock/advance moves forward, and a
// scheduler of due work on that clock. Tests advance the clock instead of sleeping. A gateway that
// holds nothing yet may start in the past (/sandbox/clock/rewind): the storefront simulator's demo
// history.

export interface Clock {
  now(): number;
}

export class VirtualClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    this.offsetMs += ms;
  }

  /**
   * Moves the clock back. Only for a gateway that has given out no date and scheduled no work yet
   * (the control API checks), or to restore a saved offset: dates must never run backwards.
   */
  rewind(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('rewind takes a positive duration');
    this.offsetMs -= ms;
  }

  get offset(): number {
    return this.offsetMs;
  }
}

type Job = () => Promise<void> | void;

interface Task {
  key: string;
  at: number;
  seq: number;
  job: Job;
}

/** A binary min-heap on (at, seq); entries whose task was replaced or cancelled are skipped. */
class TaskHeap {
  private readonly items: Task[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): Task | undefined {
    return this.items[0];
  }

  push(task: Task): void {
    const a = this.items;
    a.push(task);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent];
      if (p === undefined || !before(task, p)) break;
      a[i] = p;
      i = parent;
    }
    a[i] = task;
  }

  pop(): Task | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = last;
      let index = -1;
      const left = a[l];
      const right = a[r];
      if (left !== undefined && before(left, smallest)) {
        smallest = left;
        index = l;
      }
      if (right !== undefined && before(right, smallest)) {
        smallest = right;
        index = r;
      }
      if (index === -1) break;
      a[i] = smallest;
      i = index;
    }
    a[i] = last;
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}

function before(x: Task, y: Task): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

/**
 * Work due at a clock time, keyed so that rescheduling replaces. Due work runs when a request
 * arrives, when the clock is advanced, and on a real timer for the earliest task.
 */
export class Scheduler {
  private readonly tasks = new Map<string, Task>();
  private readonly heap = new TaskHeap();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  schedule(key: string, at: number, job: Job): void {
    const task = { key, at, seq: this.seq++, job };
    this.tasks.set(key, task);
    this.heap.push(task);
    if (at < this.timerAt) this.arm();
  }

  cancel(key: string): void {
    this.tasks.delete(key);
  }

  has(key: string): boolean {
    return this.tasks.has(key);
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Cheap check for the request path: is anything due? */
  isDue(): boolean {
    const top = this.liveTop();
    return top !== undefined && top.at <= this.clock.now();
  }

  /** Runs every due task in time order (tasks scheduled by a task run too if due). */
  runDue(): Promise<void>[] {
    const started: Promise<void>[] = [];
    for (;;) {
      const top = this.liveTop();
      if (top === undefined || top.at > this.clock.now()) break;
      this.heap.pop();
      this.tasks.delete(top.key);
      started.push(this.track(top.job));
    }
    this.arm();
    return started;
  }

  /** Waits for the asynchronous jobs started so far (callback deliveries) to finish. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  clear(): void {
    this.tasks.clear();
    this.heap.clear();
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.clear();
    if (this.timer) clearTimeout(this.timer);
  }

  /** The earliest task still scheduled, dropping heap entries that were replaced or cancelled. */
  private liveTop(): Task | undefined {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined) return undefined;
      if (this.tasks.get(top.key) === top) return top;
      this.heap.pop();
    }
  }

  private track(job: Job): Promise<void> {
    let promise: Promise<void>;
    try {
      promise = Promise.resolve(job());
    } catch (error) {
      this.onError(error);
      return Promise.resolve();
    }
    const tracked: Promise<void> = promise
      .catch(this.onError)
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.closed) return;
    const top = this.liveTop();
    if (top === undefined) return;
    this.timerAt = top.at;
    // setTimeout holds at most ~24.8 days; a later task is re-armed when the timer fires.
    const delay = Math.min(Math.max(top.at - this.clock.now(), 0), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      void Promise.all(this.runDue());
    }, delay);
    this.timer.unref();
  }
}
