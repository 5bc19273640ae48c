// The storefront simulator's demo history: on a sandbox gateway that holds nothing yet, its clock
// starts some days in the past and is moved forward as the orders are placed, so that the orders are
// dated across those days as a shop's are (more on weekdays and in the daytime, a little more each
// week), and it ends at real time. Only the sandbox's control API makes this possible; another
// gateway gets every order placed now.

const HOUR_MS = 3_600_000;

/** At most this many days: a monthly plan placed on the first day is not charged a second time. */
export const MAX_HISTORY_DAYS = 27;

/** Relative order volume by UTC weekday (Sunday first). */
const DAY_WEIGHT = [0.55, 1, 1, 1.05, 1.05, 1.15, 0.75] as const;

/** Relative order volume by UTC hour: quiet at night, busiest in the afternoon and evening. */
function hourWeight(hour: number): number {
  if (hour < 6) return 0.1;
  if (hour < 9) return 0.5;
  if (hour < 21) return 1;
  return 0.45;
}

/**
 * `count` placing times from `startMs` to `endMs`, in order: the quantiles of a volume curve made of
 * hourly weights (weekday × hour of day × a slow growth), so the same arguments give the same times.
 */
export function historyTimes(count: number, startMs: number, endMs: number): number[] {
  if (count <= 0 || endMs <= startMs)
    return Array.from({ length: Math.max(0, count) }, () => endMs);
  const buckets: { start: number; end: number; weight: number }[] = [];
  for (let start = startMs; start < endMs; start += HOUR_MS) {
    const end = Math.min(start + HOUR_MS, endMs);
    const at = new Date(start);
    const growth = 0.8 + (0.4 * (start - startMs)) / (endMs - startMs);
    const weight =
      (DAY_WEIGHT[at.getUTCDay()] ?? 1) * hourWeight(at.getUTCHours()) * growth * (end - start);
    buckets.push({ start, end, weight });
  }
  const total = buckets.reduce((sum, b) => sum + b.weight, 0);
  const times: number[] = [];
  let bucket = 0;
  let before = 0; // the weight of the buckets before `bucket`
  for (let i = 0; i < count; i += 1) {
    const target = ((i + 0.5) / count) * total;
    for (;;) {
      const b = buckets[bucket];
      if (b === undefined || before + b.weight >= target || bucket === buckets.length - 1) break;
      before += b.weight;
      bucket += 1;
    }
    const b = buckets[bucket];
    if (b === undefined) break;
    const within = b.weight > 0 ? Math.min(1, Math.max(0, (target - before) / b.weight)) : 0;
    times.push(Math.floor(b.start + within * (b.end - b.start)));
  }
  return times;
}

interface ClockState {
  nowMs: number;
  offsetMs: number;
}

/** The sandbox's clock, through its control API (`/sandbox/clock`). */
export class SandboxClock {
  constructor(private readonly origin: string) {}

  async state(): Promise<ClockState> {
    return this.request('GET', '/sandbox/clock');
  }

  /** Starts the clock `seconds` in the past; false when the gateway already holds something. */
  async rewind(seconds: number): Promise<boolean> {
    const res = await fetch(`${this.origin}/sandbox/clock/rewind`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seconds }),
    });
    await res.body?.cancel();
    if (res.status === 409) return false;
    if (res.status !== 200)
      throw new Error(`the sandbox refused to rewind its clock (${res.status})`);
    return true;
  }

  /** Moves the clock forward to `atMs` (whole seconds); never back. */
  async moveTo(atMs: number): Promise<void> {
    const { nowMs } = await this.state();
    const seconds = Math.round((atMs - nowMs) / 1000);
    if (seconds > 0) await this.request('POST', '/sandbox/clock/advance', { seconds });
  }

  /** Back to real time: the offset (whole seconds since a rewind) is made 0 exactly. */
  async catchUp(): Promise<void> {
    const { offsetMs } = await this.state();
    if (offsetMs < 0) {
      await this.request('POST', '/sandbox/clock/advance', {
        seconds: Math.ceil(-offsetMs / 1000),
      });
    }
  }

  private async request(method: string, path: string, body?: unknown): Promise<ClockState> {
    const res = await fetch(this.origin + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`${method} ${path} answered ${res.status}`);
    }
    return (await res.json()) as ClockState;
  }
}
