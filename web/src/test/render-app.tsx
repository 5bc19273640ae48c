import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider, useLocation, useNavigate } from 'react-router';
import { vi } from 'vitest';
import { AppProviders } from '../app/app-providers';
import { createQueryClient } from '../app/query-client';
import { AppRoutes } from '../app/routes';
import { resetUserActivity } from '../lib/user-activity';
import { FakeBff } from './fake-bff';
import { fakeEventSourceFor } from './fake-payments';

function LocationProbe() {
  const location = useLocation();
  const navigate = useNavigate();
  return (
    <div hidden>
      <output data-testid="location">{`${location.pathname}${location.search}`}</output>
      <button
        type="button"
        data-testid="history-back"
        onClick={() => {
          void navigate(-1);
        }}
      />
    </div>
  );
}

/**
 * Renders the whole app at `path` against `bff` (the only `fetch` there is). Given several paths,
 * the history holds them all and the app is at the last (Back goes to the one before).
 */
export function renderApp(path: string | readonly string[], bff: FakeBff = new FakeBff()) {
  vi.stubGlobal('fetch', bff.fetch);
  vi.stubGlobal(
    'EventSource',
    fakeEventSourceFor(
      () => bff.payments,
      () => bff.sessionUserId !== null,
    ),
  );
  // A fresh page: its loading is the user's latest input.
  resetUserActivity();
  const queryClient = createQueryClient({ retryDelayMs: 0 });
  // No pause between keystrokes: the screens do not debounce, so the tests need not wait.
  const user = userEvent.setup({ delay: null });
  // As main.tsx: one catch-all data route around the app's routes.
  const router = createMemoryRouter(
    [
      {
        path: '*',
        element: (
          <>
            <AppRoutes />
            <LocationProbe />
          </>
        ),
      },
    ],
    { initialEntries: typeof path === 'string' ? [path] : [...path] },
  );
  const view = render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return {
    ...view,
    bff,
    user,
    queryClient,
    location: () => screen.getByTestId('location').textContent,
    back: () => user.click(screen.getByTestId('history-back')),
  };
}
