import { describe, expect, it } from 'vitest';
import { Scheduler, VirtualClock } from './clock.js';

function setup() {
  let real = 1_000_000;
  const clock = new VirtualClock(() => real);
  const errors: unknown[] = [];
  const scheduler = new Scheduler(clock, (e) => errors.push(e));
  return { clock, scheduler, errors, tick: (ms: number) => (real += ms) };
}

describe('the sandbox clock and scheduler', () => {
  it('when the clock is advanced, then due tasks run in time order and later ones wait', () => {
    const { clock, scheduler } = setup();
    const ran: string[] = [];
    const t0 = clock.now();
    scheduler.schedule('c', t0 + 3000, () => {
      ran.push('c');
    });
    scheduler.schedule('a', t0 + 1000, () => {
      ran.push('a');
    });
    scheduler.schedule('b', t0 + 2000, () => {
      ran.push('b');
    });
    expect(scheduler.isDue()).toBe(false);
    clock.advance(2500);
    expect(scheduler.isDue()).toBe(true);
    void Promise.all(scheduler.runDue());
    expect(ran).toEqual(['a', 'b']);
    clock.advance(1000);
    void Promise.all(scheduler.runDue());
    expect(ran).toEqual(['a', 'b', 'c']);
    scheduler.close();
  });

  it('when a key is rescheduled or cancelled, then only its latest schedule runs', () => {
    const { clock, scheduler } = setup();
    const ran: string[] = [];
    const t0 = clock.now();
    scheduler.schedule('x', t0 + 1000, () => {
      ran.push('first');
    });
    scheduler.schedule('x', t0 + 5000, () => {
      ran.push('second');
    });
    scheduler.schedule('y', t0 + 1000, () => {
      ran.push('y');
    });
    scheduler.cancel('y');
    clock.advance(2000);
    void Promise.all(scheduler.runDue());
    expect(ran).toEqual([]);
    clock.advance(3000);
    void Promise.all(scheduler.runDue());
    expect(ran).toEqual(['second']);
    expect(scheduler.size).toBe(0);
    scheduler.close();
  });

  it('when real time passes, then the virtual clock follows it plus the offset; it never goes back', () => {
    const { clock, tick } = setup();
    const start = clock.now();
    tick(500);
    clock.advance(1000);
    expect(clock.now() - start).toBe(1500);
    expect(clock.offset).toBe(1000);
    expect(() => {
      clock.advance(-1);
    }).toThrow(RangeError);
  });

  it('when a task fails, then the error is reported and the others still run', async () => {
    const { clock, scheduler, errors } = setup();
    const ran: string[] = [];
    scheduler.schedule('bad', clock.now(), () => {
      throw new Error('boom');
    });
    scheduler.schedule('async-bad', clock.now(), () => Promise.reject(new Error('later')));
    scheduler.schedule('good', clock.now(), () => {
      ran.push('good');
    });
    await Promise.all(scheduler.runDue());
    await scheduler.idle();
    expect(ran).toEqual(['good']);
    expect(errors).toHaveLength(2);
    scheduler.close();
  });
});
