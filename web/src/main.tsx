import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders } from './app/app-providers';
import { createQueryClient } from './app/query-client';
import { AppRoutes } from './app/routes';
import { followSignOutsElsewhere } from './features/auth/api/session';
import { reloadOnStaleChunks } from './features/shell/stale-build';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// Before anything renders: even the first screen's code is a chunk loaded on demand.
reloadOnStaleChunks();

const queryClient = createQueryClient();
// A sign-out in another tab of this browser signs this one out at once.
followSignOutsElsewhere(queryClient);

// One catch-all route around the declarative routes (app/routes.tsx): a data router, so that the
// browser's Back can ask before a half-filled form is lost.
const router = createBrowserRouter([{ path: '*', element: <AppRoutes /> }]);

createRoot(container).render(
  <StrictMode>
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
