import { act, screen, waitFor } from '@testing-library/react';
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

  it('when a request of the page succeeds meanwhile, then the idle warning comes 28 minutes after it', async () => {
    const bff = new FakeBff();
    const app = renderApp('/users', bff);
    expect(await screen.findByRole('table', { name: 'Users' })).toBeInTheDocument();
    await pass(10);
    const sessionChecks = bff.requestsTo('GET', '/api/session').length;
    await act(async () => {
      await app.queryClient.invalidateQueries({ queryKey: ['users'] });
    });
    expect(bff.requestsTo('GET', '/api/session')).toHaveLength(sessionChecks);
    await pass(18.5);
    expect(screen.queryByText(IDLE_WARNING)).not.toBeInTheDocument();
    await pass(10);
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
