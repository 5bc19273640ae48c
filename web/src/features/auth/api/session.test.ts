import { QueryClient } from '@tanstack/react-query';
import type { SessionResponse } from '@paydesk/shared/api';
import { afterEach, describe, expect, it } from 'vitest';
import { announceSignOut, followSignOutsElsewhere, sessionKeys } from './session';

/** Until `check` holds, or about a second has gone by (a channel's message arrives async). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const session = { user: { id: 'u1' } } as unknown as SessionResponse;

describe('a sign-out in another tab', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  it('when the user signs out in one tab, then another tab with the session forgets it and what it loaded, saying the user signed out', async () => {
    const other = new QueryClient();
    other.setQueryData(sessionKeys.current, session);
    other.setQueryData(['transactions', 'list'], { items: ['customer data'] });
    stops.push(followSignOutsElsewhere(other));

    announceSignOut();
    await until(() => other.getQueryData(sessionKeys.current) === null);

    expect(other.getQueryData(sessionKeys.current)).toBeNull();
    expect(other.getQueryData(sessionKeys.ended)).toBe('signed-out');
    expect(other.getQueryData(['transactions', 'list'])).toBeUndefined();
  });

  it('when a tab has no session (the sign-in page), then the message changes nothing; other messages on the channel are ignored', async () => {
    const signedOut = new QueryClient();
    signedOut.setQueryData(sessionKeys.current, null);
    const signedIn = new QueryClient();
    signedIn.setQueryData(sessionKeys.current, session);
    stops.push(followSignOutsElsewhere(signedOut), followSignOutsElsewhere(signedIn));

    const stranger = new BroadcastChannel('paydesk-session');
    stranger.postMessage('hello');
    stranger.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signedIn.getQueryData(sessionKeys.current)).toBe(session);

    announceSignOut();
    await until(() => signedIn.getQueryData(sessionKeys.current) === null);
    expect(signedIn.getQueryData(sessionKeys.current)).toBeNull();
    expect(signedOut.getQueryData(sessionKeys.ended)).toBeUndefined();
  });
});
