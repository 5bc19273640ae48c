import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
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
});
