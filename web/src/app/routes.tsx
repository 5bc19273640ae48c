import { lazy } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { HomeRedirect } from '../features/shell/routes/home-redirect';
import { RouteErrorBoundary } from '../features/shell/routes/route-error';
import { lazyElement } from './lazy-route';

// Every screen is its own chunk: the sign-in page loads none of the signed-in screens' code.
// Declarative routing: no route needs loaders or actions (TanStack Query owns data), and it keeps
// the data router's code out of the initial bundle.
const SignInRoute = lazy(() => import('../features/auth/routes/sign-in-route'));
const ShellRoute = lazy(() => import('../features/shell/routes/shell-route'));
const AccountRoute = lazy(() => import('../features/auth/routes/account-route'));
const UsersRoute = lazy(() => import('../features/users/routes/users-route'));
const TransactionsRoute = lazy(() => import('../features/transactions/routes/transactions-route'));
const TransactionDetailRoute = lazy(
  () => import('../features/transactions/routes/transaction-detail-route'),
);
const PayoutsRoute = lazy(() => import('../features/payouts/routes/payouts-route'));
const AuditRoute = lazy(() => import('../features/audit/routes/audit-route'));
const NotFoundRoute = lazy(() => import('../features/shell/routes/not-found-route'));

export function AppRoutes() {
  const location = useLocation();
  return (
    <RouteErrorBoundary resetKey={location.pathname}>
      <Routes>
        <Route path="/sign-in" element={lazyElement(SignInRoute)} />
        <Route path="/" element={lazyElement(ShellRoute)}>
          <Route index element={<HomeRedirect />} />
          <Route path="account" element={lazyElement(AccountRoute)} />
          <Route path="users" element={lazyElement(UsersRoute)} />
          <Route path="transactions" element={lazyElement(TransactionsRoute)} />
          <Route path="transactions/:id" element={lazyElement(TransactionDetailRoute)} />
          <Route path="payouts" element={lazyElement(PayoutsRoute)} />
          <Route path="audit" element={lazyElement(AuditRoute)} />
          <Route path="*" element={lazyElement(NotFoundRoute)} />
        </Route>
      </Routes>
    </RouteErrorBoundary>
  );
}
