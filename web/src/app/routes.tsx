import { lazy } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { BackGuard } from '../components/back-guard';
import { RouteErrorBoundary } from '../features/shell/routes/route-error';
import { lazyElement } from './lazy-route';

// Every screen is its own chunk: the sign-in page loads none of the signed-in screens' code.
// Declarative routing inside one catch-all data route (main.tsx): no route needs loaders or
// actions (TanStack Query owns data); the data router is there for the browser's Back and Forward
// to ask before a half-filled form is lost (`BackGuard`).
const SignInRoute = lazy(() => import('../features/auth/routes/sign-in-route'));
const ChoosePasswordRoute = lazy(() => import('../features/auth/routes/choose-password-route'));
const ShellRoute = lazy(() => import('../features/shell/routes/shell-route'));
const HomeRoute = lazy(() => import('../features/home/routes/home-route'));
const AccountRoute = lazy(() => import('../features/auth/routes/account-route'));
const UsersRoute = lazy(() => import('../features/users/routes/users-route'));
const TransactionsRoute = lazy(() => import('../features/transactions/routes/transactions-route'));
const TransactionDetailRoute = lazy(
  () => import('../features/transactions/routes/transaction-detail-route'),
);
const PayoutsRoute = lazy(() => import('../features/payouts/routes/payouts-route'));
const PayoutDetailRoute = lazy(() => import('../features/payouts/routes/payout-detail-route'));
const CardsRoute = lazy(() => import('../features/cards/routes/cards-route'));
const SubscriptionsRoute = lazy(
  () => import('../features/subscriptions/routes/subscriptions-route'),
);
const SubscriptionDetailRoute = lazy(
  () => import('../features/subscriptions/routes/subscription-detail-route'),
);
const PaymentLinksRoute = lazy(
  () => import('../features/payment-links/routes/payment-links-route'),
);
const PaymentLinkDetailRoute = lazy(
  () => import('../features/payment-links/routes/payment-link-detail-route'),
);
const AuditRoute = lazy(() => import('../features/audit/routes/audit-route'));
const NotFoundRoute = lazy(() => import('../features/shell/routes/not-found-route'));

export function AppRoutes() {
  const location = useLocation();
  return (
    <RouteErrorBoundary resetKey={location.pathname}>
      <Routes>
        <Route path="/sign-in" element={lazyElement(SignInRoute)} />
        <Route path="/choose-password" element={lazyElement(ChoosePasswordRoute)} />
        <Route path="/" element={lazyElement(ShellRoute)}>
          <Route index element={lazyElement(HomeRoute)} />
          <Route path="account" element={lazyElement(AccountRoute)} />
          <Route path="users" element={lazyElement(UsersRoute)} />
          <Route path="transactions" element={lazyElement(TransactionsRoute)} />
          <Route path="transactions/:id" element={lazyElement(TransactionDetailRoute)} />
          <Route path="payouts" element={lazyElement(PayoutsRoute)} />
          <Route path="payouts/:id" element={lazyElement(PayoutDetailRoute)} />
          <Route path="cards" element={lazyElement(CardsRoute)} />
          <Route path="subscriptions" element={lazyElement(SubscriptionsRoute)} />
          <Route path="subscriptions/:id" element={lazyElement(SubscriptionDetailRoute)} />
          <Route path="payment-links" element={lazyElement(PaymentLinksRoute)} />
          <Route path="payment-links/:id" element={lazyElement(PaymentLinkDetailRoute)} />
          <Route path="audit" element={lazyElement(AuditRoute)} />
          <Route path="*" element={lazyElement(NotFoundRoute)} />
        </Route>
      </Routes>
      <BackGuard />
    </RouteErrorBoundary>
  );
}
