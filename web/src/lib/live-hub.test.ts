import type { LiveEvent } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import {
  LiveHub,
  type ChannelLike,
  type EventSourceLike,
  type LiveListener,
  type LiveState,
  type LocksLike,
} from './live-hub';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The server side of every stream the tabs opened. */
class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private readonly listeners = new Map<string, ((event: MessageEvent<unknown>) => void)[]>();
  addEventListener(name: string, listener: (event: MessageEvent<unknown>) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  /** the connection dropped (the browser retries) or was refused (it gives up) */
  fail(refused: boolean): void {
    this.readyState = refused ? 2 : 0;
    this.onerror?.(new Event('error'));
  }
  emit(name: string, event: LiveEvent): void {
    const message = new MessageEvent(name, { data: JSON.stringify(event) });
    for (const l of this.listeners.get(name) ?? []) l(message);
  }
}

/** BroadcastChannel between tabs: a message reaches every other open channel, later. */
class Bus {
  readonly channels = new Set<ChannelLike>();
  open(): ChannelLike {
    const channels = this.channels;
    const channel: ChannelLike = {
      onmessage: null,
      postMessage(message: unknown) {
        for (const other of channels) {
          if (other === channel) continue;
          queueMicrotask(() => {
            if (channels.has(other))
              other.onmessage?.(new MessageEvent('message', { data: message }));
          });
        }
      },
      close() {
        channels.delete(channel);
      },
    };
    channels.add(channel);
    return channel;
  }
}

/** Web Locks: one holder per name, the others waiting in order until granted or aborted. */
class Locks implements LocksLike {
  private held = false;
  private readonly waiting: { signal: AbortSignal; grant: () => void }[] = [];
  request(_name: string, options: { signal: AbortSignal }, callback: () => Promise<void>) {
    return new Promise<unknown>((resolve, reject) => {
      const grant = () => {
        this.held = true;
        void callback().then(() => {
          this.held = false;
          resolve(undefined);
          this.next();
        });
      };
      options.signal.addEventListener('abort', () => {
        const i = this.waiting.findIndex((w) => w.grant === grant);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          reject(new DOMException('aborted', 'AbortError'));
        }
      });
      this.waiting.push({ signal: options.signal, grant });
      if (!this.held) this.next();
    });
  }
  private next(): void {
    const first = this.waiting.shift();
    first?.grant();
  }
}

/** A browser: its tabs share the channel and the locks; every stream any tab opened. */
function browser(options: { crossTab: boolean } = { crossTab: true }) {
  const bus = new Bus();
  const locks = new Locks();
  const sources: FakeSource[] = [];
  const tab = () =>
    new LiveHub({
      openSource: () => {
        const source = new FakeSource();
        sources.push(source);
        return source;
      },
      openChannel: () => (options.crossTab ? bus.open() : null),
      locks: options.crossTab ? locks : null,
      lingerMs: 0,
    });
  const open = () => sources.filter((s) => !s.closed);
  return { tab, sources, open };
}

/** A screen following `transaction` events: what it received, its states, its catch-ups. */
function screen(): LiveListener & { events: LiveEvent[]; states: LiveState[]; catchUps: number } {
  const s = {
    events: [] as LiveEvent[],
    states: [] as LiveState[],
    catchUps: 0,
    receive: (event: LiveEvent) => s.events.push(event),
    catchUp: () => {
      s.catchUps += 1;
    },
    state: (state: LiveState) => s.states.push(state),
  };
  return s;
}

/** Two tabs, each with a screen, live on the first tab's stream. */
async function twoLiveTabs() {
  const b = browser();
  const [first, second] = [b.tab(), b.tab()];
  const one = screen();
  first.subscribe('transaction', one);
  const two = screen();
  second.subscribe('transaction', two);
  await tick();
  b.open()[0]?.open();
  await tick();
  return { b, one, two };
}

const event = (id: string): LiveEvent => ({
  type: 'transaction.updated',
  transactionId: id,
  orderid: '1000001',
  status: 'approved',
  transactionType: 'sale',
  drift: false,
  at: '2026-11-25T10:00:00.000Z',
});

describe('LiveHub: one event stream for every screen of every tab', () => {
  it('when eight tabs follow events, then one stream is open, and each event and state reaches every tab', async () => {
    const b = browser();
    const tabs = Array.from({ length: 8 }, () => b.tab());
    const screens = tabs.map((t) => {
      const s = screen();
      t.subscribe('transaction', s);
      return s;
    });
    await tick();
    expect(b.open()).toHaveLength(1);
    b.open()[0]?.open();
    await tick();
    for (const s of screens) expect(s.states.at(-1)).toBe('live');
    b.open()[0]?.emit('transaction', event('a'));
    b.open()[0]?.emit('payout', {
      type: 'payout.updated',
      payoutId: 'p',
      state: 'approved',
      orderid: null,
      at: '2026-11-25T10:00:00.000Z',
    });
    await tick();
    for (const s of screens) {
      // only the events the screen follows
      expect(s.events.map((e) => e.type)).toEqual(['transaction.updated']);
      expect(s.catchUps).toBe(0);
    }
    expect(b.sources).toHaveLength(1);
  });

  it('when the tab holding the stream closes its screens, then the next tab opens its own, and every tab catches up on what went by meanwhile', async () => {
    const b = browser();
    const [first, second, third] = [b.tab(), b.tab(), b.tab()];
    const one = screen();
    const leave = first.subscribe('transaction', one);
    const two = screen();
    second.subscribe('transaction', two);
    const three = screen();
    third.subscribe('transaction', three);
    await tick();
    b.open()[0]?.open();
    await tick();
    expect([two.catchUps, three.catchUps]).toEqual([0, 0]);

    leave();
    await tick();
    await tick();
    expect(b.sources[0]?.closed).toBe(true);
    expect(b.open()).toHaveLength(1);
    expect(two.states.at(-1)).toBe('connecting');
    b.open()[0]?.open();
    await tick();
    expect([two.states.at(-1), three.states.at(-1)]).toEqual(['live', 'live']);
    expect([two.catchUps, three.catchUps]).toEqual([1, 1]);
    b.open()[0]?.emit('transaction', event('b'));
    await tick();
    expect(three.events).toHaveLength(1);
    expect(one.events).toHaveLength(0);
  });

  it('when the BFF refuses the stream (the session ended), then every tab is off, and each tab tries once more at most', async () => {
    const { b, one, two } = await twoLiveTabs();
    b.open()[0]?.fail(true);
    await tick();
    expect(one.states).toContain('off');
    expect(two.states).toContain('off');
    // The second tab, waiting for the lock, then tries its own; refused too, nothing is left open.
    expect(b.sources).toHaveLength(2);
    expect(two.states.at(-1)).toBe('connecting');
    b.open()[0]?.fail(true);
    await tick();
    expect(b.open()).toHaveLength(0);
    expect(b.sources).toHaveLength(2);
    expect([one.states.at(-1), two.states.at(-1)]).toEqual(['off', 'off']);
  });

  it('when the session is back after the BFF refused the stream (signed in again in place), then the stream opens again and its screens catch up', async () => {
    const b = browser({ crossTab: false });
    const tab = b.tab();
    const one = screen();
    tab.subscribe('transaction', one);
    b.sources[0]?.open();
    b.sources[0]?.fail(true);
    await tick();
    expect(one.states.at(-1)).toBe('off');
    tab.retry();
    expect(b.sources).toHaveLength(2);
    b.sources[1]?.open();
    expect(one.states.at(-1)).toBe('live');
    expect(one.catchUps).toBe(1);
    // Nothing to do while a stream is open.
    tab.retry();
    expect(b.sources).toHaveLength(2);
  });

  it('when a dropped connection comes back, then every screen of every tab catches up; the first connection needs none', async () => {
    const { b, one, two } = await twoLiveTabs();
    const source = b.open()[0];
    source?.fail(false);
    await tick();
    expect([one.states.at(-1), two.states.at(-1)]).toEqual(['reconnecting', 'reconnecting']);
    source?.open();
    await tick();
    expect([one.catchUps, two.catchUps]).toEqual([1, 1]);
    expect(b.sources).toHaveLength(1);
  });

  it('without Web Locks or BroadcastChannel, then the screens of a tab still share one stream, closed once the last screen closes', async () => {
    const b = browser({ crossTab: false });
    const tab = b.tab();
    const [one, two] = [screen(), screen()];
    const leaveOne = tab.subscribe('transaction', one);
    const leaveTwo = tab.subscribe('payout', two);
    expect(b.sources).toHaveLength(1);
    b.sources[0]?.open();
    expect([one.states.at(-1), two.states.at(-1)]).toEqual(['live', 'live']);
    // A screen opened later is live at once.
    const three = screen();
    tab.subscribe('transaction', three);
    expect(three.states).toEqual(['live']);
    leaveOne();
    leaveTwo();
    await tick();
    expect(b.sources[0]?.closed).toBe(false);
    const refused = screen();
    const leaveRefused = tab.subscribe('transaction', refused);
    b.sources[0]?.fail(true);
    expect(refused.states.at(-1)).toBe('off');
    // A screen opened after a refusal tries again.
    const retry = screen();
    tab.subscribe('transaction', retry);
    expect(b.sources).toHaveLength(2);
    expect(retry.states).toEqual(['connecting']);
    leaveRefused();
  });
});
