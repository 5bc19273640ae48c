import type { AuditTargetRef, Role } from '@paydesk/shared/api';
import { allows, SCREENS, type Screen } from '../../shell/navigation';

/** The screen each kind of record is shown on: its page is `<path>/<id>`, but a user's (the list). */
const SCREEN_OF: Record<AuditTargetRef['kind'], Screen | null> = {
  transaction: SCREENS.transactions,
  payout: SCREENS.payouts,
  link: SCREENS.paymentLinks,
  subscription: SCREENS.subscriptions,
  user: SCREENS.users,
  // a saved view has no page of its own
  view: null,
};

/**
 * The page of what a row's target names (`/payouts/<id>`, `/users?user=<id>`, ...), when `roles` may open it; null
 * when they may not, or it has none: the target is then said as plain text.
 */
export function auditTargetPath(ref: AuditTargetRef, roles: readonly Role[]): string | null {
  const screen = SCREEN_OF[ref.kind];
  if (screen === null || !allows(screen, roles)) return null;
  // A user has no page of their own: the users list, opened on their row (`?user=<id>`).
  return ref.kind === 'user'
    ? `${screen.path}?${new URLSearchParams({ user: ref.id }).toString()}`
    : `${screen.path}/${encodeURIComponent(ref.id)}`;
}
