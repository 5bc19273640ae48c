import type { Role } from '@paydesk/shared/api';

export interface Screen {
  path: string;
  label: string;
  /** any one of these roles opens the screen; empty = every signed-in user */
  roles: readonly Role[];
}

// Only screens that exist are listed, in the navigation's order.
export const SCREENS = {
  // Every signed-in user: figures for the readers of transactions, shortcuts for everyone else.
  home: { path: '/', label: 'Home', roles: [] },
  // Mirrors the BFF's route table (bff/src/payments/route-rules.ts): the readers of transactions.
  transactions: {
    path: '/transactions',
    label: 'Transactions',
    roles: ['support', 'finance', 'ops', 'auditor'],
  },
  // The BFF lets every reader list payouts; preparing and deciding are ops only.
  payouts: { path: '/payouts', label: 'Payouts', roles: ['ops', 'support', 'finance', 'auditor'] },
  // Card info is support and finance (bff/src/payouts/route-rules.ts); rebills are finance only.
  cards: { path: '/cards', label: 'Cards', roles: ['support', 'finance'] },
  // Every reader lists subscriptions and payment links; creating them is finance (links: and ops).
  subscriptions: {
    path: '/subscriptions',
    label: 'Subscriptions',
    roles: ['support', 'finance', 'ops', 'auditor'],
  },
  paymentLinks: {
    path: '/payment-links',
    label: 'Payment links',
    roles: ['support', 'finance', 'ops', 'auditor'],
  },
  audit: { path: '/audit', label: 'Audit log', roles: ['auditor'] },
  // Admins manage the accounts; auditors read them (who the staff are), as the BFF allows.
  users: { path: '/users', label: 'Users', roles: ['admin', 'auditor'] },
  account: { path: '/account', label: 'My account', roles: [] },
} as const satisfies Record<string, Screen>;

const ORDER: readonly Screen[] = [
  SCREENS.home,
  SCREENS.transactions,
  SCREENS.payouts,
  SCREENS.cards,
  SCREENS.subscriptions,
  SCREENS.paymentLinks,
  SCREENS.audit,
  SCREENS.users,
  SCREENS.account,
];
export function allows(screen: Screen, roles: readonly Role[]): boolean {
  return screen.roles.length === 0 || screen.roles.some((role) => roles.includes(role));
}

export function navigationFor(roles: readonly Role[]): Screen[] {
  return ORDER.filter((screen) => allows(screen, roles));
}

/** Only same-app paths are followed after sign-in (no `//evil.example` or absolute URLs). */
export function safeNextPath(next: string | null): string | null {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\'))
    return null;
  if (next.startsWith('/sign-in')) return null;
  return next;
}
