import { describe, expect, it } from 'vitest';
import { PollLoop } from './poll-loop.js';

const tick = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('PollLoop', () => {
  it('when started, then passes repeat one after another, a failing pass does not stop the loop, and stop waits for the pass under way', async () => {
    let running = 0;
    let overlapped = false;
    let passes = 0;
    const errors: unknown[] = [];
    const loop = new PollLoop(
      1,
      async () => {
        running += 1;
        overlapped ||= running > 1;
        passes += 1;
        await tick(5);
        running -= 1;
        if (passes === 2) throw new Error('pass 2 failed');
      },
      (err) => errors.push(err),
    );
    loop.start();
    loop.start(); // a second start arms nothing more
    while (passes < 4) await tick(2);
    await loop.stop();
    expect(running).toBe(0);
    const stoppedAt = passes;
    await tick(20);
    expect(overlapped).toBe(false);
    expect(errors).toHaveLength(1);
    expect(passes).toBe(stoppedAt);
  });
});
