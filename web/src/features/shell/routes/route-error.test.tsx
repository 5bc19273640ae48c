import { render, screen } from '@testing-library/react';
import { lazy, type ComponentType } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { lazyElement } from '../../../app/lazy-route';
import { RouteErrorBoundary } from './route-error';

function Screen({ broken }: { broken: boolean }) {
  if (broken) throw new Error('chunk failed to load');
  return <p>screen content</p>;
}

describe('RouteErrorBoundary', () => {
  it('when a screen throws, then an alert offers a reload, and navigating elsewhere recovers', () => {
    // React reports the caught error on the console; keep the test output readable.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const view = render(
      <RouteErrorBoundary resetKey="/users">
        <Screen broken />
      </RouteErrorBoundary>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('This screen failed to load');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();

    view.rerender(
      <RouteErrorBoundary resetKey="/account">
        <Screen broken={false} />
      </RouteErrorBoundary>,
    );
    expect(screen.getByText('screen content')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when a screen’s chunk is gone after a deploy, then the alert says Paydesk was updated and offers Reload, not the generic message', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // How a browser rejects the import of a chunk file the new build no longer has.
    const ShellRoute = lazy((): Promise<{ default: ComponentType }> =>
      Promise.reject(
        new TypeError(
          'Failed to fetch dynamically imported module: http://127.0.0.1:4173/assets/shell-route-Bx1fZ2.js',
        ),
      ),
    );
    render(<RouteErrorBoundary resetKey="/">{lazyElement(ShellRoute)}</RouteErrorBoundary>);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Paydesk was updated: reload to get the new version',
    );
    expect(screen.getByRole('alert')).not.toHaveTextContent('Something went wrong');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('when a chunk fails to load while the browser is offline, then the alert does not claim an update', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const Offline = lazy((): Promise<{ default: ComponentType }> =>
      Promise.reject(new TypeError('Failed to fetch dynamically imported module: /assets/x.js')),
    );
    render(<RouteErrorBoundary resetKey="/">{lazyElement(Offline)}</RouteErrorBoundary>);
    expect(await screen.findByRole('alert')).toHaveTextContent('This screen failed to load');
    expect(screen.getByRole('alert')).not.toHaveTextContent('Paydesk was updated');
    vi.restoreAllMocks();
  });
});
