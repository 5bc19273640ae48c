// One `GET /api/events` stream for the whole browser, not one per screen or per tab.
//
// A browser keeps at most six HTTP/1.1 connections to one host, for all its tabs together, and an
// event stream holds one for as long as it is open: with a stream per screen, the sixth Paydesk tab
// would wait for ever for its own page. So the screens of a tab share one hub, and the tabs share
// one stream: the tab holding the Web Lock `paydesk-live-events` (the leader) opens it and passes
// every event and every change of its state to the other tabs over a BroadcastChannel. When the
// leader no longer needs it (its screens closed, or the tab), the next tab waiting for the lock
// opens its own, and every tab refetches what it shows, since events may have gone by meanwhile.
// Without Web Locks or BroadcastChannel each tab has its own stream.
import { LIVE_EVENT_NAMES, LiveEventSchema, liveEventName } from '@paydesk/shared/api';
import type { LiveEvent, LiveEventName } from '@paydesk/shared/api';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off';

/** What a screen gives the hub: where events go, what to do after a gap, how to show the state. */
export interface LiveListener {
  receive(event: LiveEvent): void;
  /** events may have been missed: refetch what the screen shows */
  catchUp(): void;
  state(state: LiveState): void;
}

/** The parts of EventSource, BroadcastChannel and LockManager the hub uses (fakes in tests). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onerror: ((event: Event) => void) | null;
  addEventListener(name: string, listener: (event: MessageEvent<unknown>) => void): void;
  close(): void;
}
export interface ChannelLike {
  onmessage: ((event: MessageEvent<unknown>) => void) | null;
  postMessage(message: unknown): void;
  close(): void;
}
export interface LocksLike {
  request(
    name: string,
    options: { signal: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<unknown>;
}

export interface LiveHubDeps {
  openSource(): EventSourceLike;
  /** null: this tab keeps its own stream */
  openChannel(): ChannelLike | null;
  locks: LocksLike | null;
  /** how long the stream stays after the last screen closed (the next screen often opens at once) */
  lingerMs?: number;
}

const CLOSED = 2;
const LOCK = 'paydesk-live-events';
const CHANNEL = 'paydesk-live-events';

/** What the tabs tell one another. */
type Message =
  | { kind: 'hello' }
  | { kind: 'state'; state: LiveState; catchUp: boolean }
  | { kind: 'event'; data: string };

function asMessage(value: unknown): Message | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  if (m.kind === 'hello') return { kind: 'hello' };
  if (m.kind === 'event' && typeof m.data === 'string') return { kind: 'event', data: m.data };
  if (
    m.kind === 'state' &&
    (m.state === 'connecting' ||
      m.state === 'live' ||
      m.state === 'reconnecting' ||
      m.state === 'off') &&
    typeof m.catchUp === 'boolean'
  ) {
    return { kind: 'state', state: m.state, catchUp: m.catchUp };
  }
  return null;
}

function parseEvent(data: string): LiveEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = LiveEventSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

interface Subscription {
  name: LiveEventName;
  listener: LiveListener;
}

export class LiveHub {
  private readonly subscriptions = new Set<Subscription>();
  private state: LiveState = 'connecting';
  private running = false;
  private linger: ReturnType<typeof setTimeout> | undefined;
  private source: EventSourceLike | null = null;
  private channel: ChannelLike | null = null;
  /** aborts the lock request, or ends the leadership once held */
  private lockAbort: AbortController | null = null;
  private releaseLock: (() => void) | null = null;
  private leader = false;
  /** another tab led before: this tab's first connection may follow a gap */
  private followedLeader = false;
  private opens = 0;

  constructor(private readonly deps: LiveHubDeps) {}

  /** Follows events named `name` until the returned function is called. */
  subscribe(name: LiveEventName, listener: LiveListener): () => void {
    const subscription = { name, listener };
    this.subscriptions.add(subscription);
    clearTimeout(this.linger);
    this.linger = undefined;
    // Refused earlier and not waiting for another tab's stream: a screen opened now tries again.
    if (this.running && this.state === 'off' && this.source === null && !this.leader) this.stop();
    if (!this.running) this.start();
    listener.state(this.state);
    return () => {
      this.subscriptions.delete(subscription);
      if (this.subscriptions.size > 0 || this.linger !== undefined) return;
      this.linger = setTimeout(() => {
        this.linger = undefined;
        if (this.subscriptions.size === 0) this.stop();
      }, this.deps.lingerMs ?? 1_000);
    };
  }

  /**
   * The session is back (signed in again in place): a stream the BFF refused is opened again for
   * the screens still following events, which catch up on what went by meanwhile.
   */
  retry(): void {
    if (!this.running || this.state !== 'off' || this.source !== null || this.leader) return;
    this.stop();
    if (this.subscriptions.size === 0) return;
    this.start();
    this.followedLeader = true;
  }

  private start(): void {
    this.running = true;
    this.state = 'connecting';
    this.opens = 0;
    this.followedLeader = false;
    const channel = this.deps.locks === null ? null : this.deps.openChannel();
    if (channel === null || this.deps.locks === null) {
      this.connect();
      return;
    }
    this.channel = channel;
    channel.onmessage = (message) => {
      this.heard(asMessage(message.data));
    };
    channel.postMessage({ kind: 'hello' } satisfies Message);
    const abort = new AbortController();
    this.lockAbort = abort;
    this.deps.locks
      .request(LOCK, { signal: abort.signal }, () => {
        if (abort.signal.aborted) return Promise.resolve();
        this.leader = true;
        this.setState('connecting', false);
        this.connect();
        return new Promise<void>((resolve) => {
          this.releaseLock = resolve;
        });
      })
      .catch(() => {
        // aborted while waiting: this tab no longer needs the stream
      });
  }

  private stop(): void {
    this.running = false;
    this.source?.close();
    this.source = null;
    this.leader = false;
    this.lockAbort?.abort();
    this.lockAbort = null;
    this.releaseLock?.();
    this.releaseLock = null;
    this.channel?.close();
    this.channel = null;
  }

  /** Opens this tab's stream: alone, or as the leader of all tabs. */
  private connect(): void {
    const source = this.deps.openSource();
    this.source = source;
    source.onopen = () => {
      // Not the first connection, or one after another tab's: events may have gone by.
      const catchUp = this.opens > 0 || this.followedLeader;
      this.opens += 1;
      this.setState('live', catchUp);
    };
    source.onerror = () => {
      if (source.readyState !== CLOSED) {
        this.setState('reconnecting', false);
        return;
      }
      // Refused (the session ended): no retry. Another tab may still connect and lead.
      this.setState('off', false);
      source.close();
      this.source = null;
      this.leader = false;
      this.releaseLock?.();
      this.releaseLock = null;
    };
    for (const name of LIVE_EVENT_NAMES) {
      source.addEventListener(name, (message) => {
        if (typeof message.data !== 'string') return;
        if (this.leader) this.channel?.postMessage({ kind: 'event', data: message.data });
        this.deliver(message.data);
      });
    }
  }

  private heard(message: Message | null): void {
    if (message === null) return;
    if (message.kind === 'hello') {
      if (this.leader) {
        this.channel?.postMessage({ kind: 'state', state: this.state, catchUp: false });
      }
      return;
    }
    if (this.leader) return;
    this.followedLeader = true;
    if (message.kind === 'event') this.deliver(message.data);
    else this.setState(message.state, message.catchUp);
  }

  private deliver(data: string): void {
    const event = parseEvent(data);
    if (event === null) return;
    const name = liveEventName(event);
    for (const s of [...this.subscriptions]) if (s.name === name) s.listener.receive(event);
  }

  /** This tab's state, told to its screens and (as the leader) to the other tabs. */
  private setState(state: LiveState, catchUp: boolean): void {
    this.state = state;
    if (this.leader) this.channel?.postMessage({ kind: 'state', state, catchUp });
    for (const s of [...this.subscriptions]) {
      s.listener.state(state);
      if (catchUp) s.listener.catchUp();
    }
  }
}

let shared: LiveHub | null = null;

/** The browser's hub: EventSource, and across tabs when Web Locks and BroadcastChannel exist. */
export function liveHub(): LiveHub {
  shared ??= new LiveHub({
    openSource: () => new EventSource('/api/events', { withCredentials: true }),
    openChannel: () =>
      typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL),
    locks: typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : null,
  });
  return shared;
}

/** Tests: forget the hub (and its stream), so the next screen opens a fresh one. */
export function resetLiveHub(): void {
  shared = null;
}
