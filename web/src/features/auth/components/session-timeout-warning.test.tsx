import { act, screen, waitFor } from '@testing-library/react';
import { IDLE_HEADER } from '@paydesk/shared/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBff } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const IDLE_WARNING = 'You will be signed out in 2 minutes for inactivity.';

/** Lets `minutes` of the fake clock go by, timers firing on the way. */
async function pass(minutes: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(minutes * 60_000);
  });
}

describe('warnings before the session ends', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when 28 minutes pass without a request, then the idle warning shows, and "Stay signed in" asks for the session once and puts it off another 28 minutes', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    await pass(27.5);
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    await pass(1);
    expect(await screen.findByText(IDLE_WARNING)).toBeInTheDocument();

    const before = bff.requestsTo('GET', '/api/session').length;
    await app.user.click(screen.getByRole('button', { name: 'Stay signed in' }));
    await waitFor(() => {
      expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    });
    expect(bff.requestsTo('GET', '/api/session')).toHaveLength(before + 1);
    await pass(27.5);
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    await pass(1);
    expect(await screen.findByText(IDLE_WARNING)).toBeInTheDocument();
  });

  it('when the user acts and a request of the page tells the BFF, then the idle warning comes 28 minutes after that input', async () => {
    const bff = new FakeBff();
    const app = renderApp('/users', bff);
    expect(await screen.findByRole('table', { name: 'Users' })).toBeInTheDocument();
    await pass(10);
    const sessionChecks = bff.requestsTo('GET', '/api/session').length;
    await app.user.keyboard('{Shift}');
    await act(async () => {
      await app.queryClient.invalidateQueries({ queryKey: ['users'] });
    });
    const told = bff.requests.filter((r) => r.path === '/api/users').at(-1);
    expect(Number(told?.headers.get(IDLE_HEADER))).toBeLessThan(1_000);
    expect(bff.requestsTo('GET', '/api/session')).toHaveLength(sessionChecks);
    await pass(18.5);
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    await pass(10);
    expect(await screen.findByText(IDLE_WARNING)).toBeInTheDocument();
  });

  it('when the page refetches by itself while the user is away (after live events), then the idle warning still comes 28 minutes after the last input (QA)', async () => {
    const bff = new FakeBff();
    const app = renderApp('/users', bff);
    expect(await screen.findByRole('table', { name: 'Users' })).toBeInTheDocument();
    for (let minute = 5; minute <= 25; minute += 5) {
      await pass(5);
      await act(async () => {
        await app.queryClient.invalidateQueries({ queryKey: ['users'] });
      });
    }
    // Each refetch said how long the user had been away: the BFF does not restart its timeout.
    const refetches = bff.requests.filter((r) => r.path === '/api/users');
    expect(Number(refetches.at(-1)?.headers.get(IDLE_HEADER))).toBeGreaterThanOrEqual(25 * 60_000);
    await pass(3.5);
    expect(await screen.findByText(IDLE_WARNING)).toBeInTheDocument();
  });

  it('when the user typed without a request meanwhile, then at the warning’s time one quiet session read tells the BFF instead of a warning', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    await pass(20);
    await app.user.keyboard('{Shift}');
    const before = bff.requestsTo('GET', '/api/session').length;
    await pass(8.5);
    await waitFor(() => {
      expect(bff.requestsTo('GET', '/api/session')).toHaveLength(before + 1);
    });
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    // The timeout now runs from that input (minute 20): the warning comes at minute 48.
    await pass(19);
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    await pass(1);
    expect(await screen.findByText(IDLE_WARNING)).toBeInTheDocument();
  });

  it('when the session’s absolute end is 5 minutes away, then it says once when the session ends and that it cannot be extended', async () => {
    const bff = new FakeBff();
    bff.absoluteTimeoutMs = 20 * 60_000;
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    await pass(14.5);
    expect(screen.queryByText(/cannot be extended/)).not.toBeInTheDocument();
    await pass(1);
    const warning = await screen.findByRole('alert');
    expect(warning).toHaveTextContent(/Your session ends at .+ and cannot be extended/);
    // Staying signed in cannot help here: no idle warning, no such button.
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stay signed in' })).not.toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => {
      expect(screen.queryByText(/cannot be extended/)).not.toBeInTheDocument();
    });
    await pass(1);
    expect(screen.queryByText(/cannot be extended/)).not.toBeInTheDocument();
  });
});
