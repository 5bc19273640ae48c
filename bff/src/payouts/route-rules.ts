// The payouts module's route-table entries (same shape as http/route-table.ts), in a module with
// no runtime imports so that route-table.ts can spread them without an import cycle.
import type { RouteRule } from '../http/route-table.js';

const READERS = ['support', 'finance', 'ops', 'auditor'] as const;
const OPS = ['ops'] as const;

/** Entries for ROUTES in http/route-table.ts (`...PAYOUT_ROUTES`). */
export const PAYOUT_ROUTES = {
  'GET /api/payouts': { access: READERS, action: 'payout.list', auditSuccess: false },
  'POST /api/payouts': { access: OPS, action: 'payout.prepare', auditSuccess: true },
  'GET /api/payouts/:id': { access: READERS, action: 'payout.read', auditSuccess: false },
  'POST /api/payouts/:id/approve': { access: OPS, action: 'payout.approve', auditSuccess: true },
  'POST /api/payouts/:id/reject': { access: OPS, action: 'payout.reject', auditSuccess: true },
  // Paying again, on the same checked order, a two-step payout whose payment the gateway did not
  // make (judged not applied): an ops user other than its preparer, under an Idempotency-Key.
  'POST /api/payouts/:id/pay-again': {
    access: OPS,
    action: 'payout.pay_again',
    auditSuccess: true,
  },
  // A `status` check now of a payout whose outcome is open, or that was judged not applied after
  // its money request was sent (the gateway may pay it late); moves no money: no Idempotency-Key.
  // For the staff who handle orders, as a payment link's; auditors read and do not act.
  'POST /api/payouts/:id/refresh': {
    access: ['support', 'finance', 'ops'],
    action: 'payout.refresh',
    auditSuccess: true,
  },
  'GET /api/payment-links': { access: READERS, action: 'payment_link.list', auditSuccess: false },
  'POST /api/payment-links': {
    access: ['finance', 'ops'],
    action: 'payment_link.create',
    auditSuccess: true,
  },
  'GET /api/payment-links/:id': {
    access: READERS,
    action: 'payment_link.read',
    auditSuccess: false,
  },
  // A `status` check now (moves no money: no Idempotency-Key), for the staff who handle orders
  // (as the order lookup); auditors read and do not act.
  'POST /api/payment-links/:id/refresh': {
    access: ['support', 'finance', 'ops'],
    action: 'payment_link.refresh',
    auditSuccess: true,
  },
  'POST /api/payment-links/:id/approve': {
    access: OPS,
    action: 'payment_link.approve',
    auditSuccess: true,
  },
  'POST /api/payment-links/:id/reject': {
    access: OPS,
    action: 'payment_link.reject',
    auditSuccess: true,
  },
  'GET /api/cards': { access: ['support', 'finance'], action: 'card.list', auditSuccess: false },
  'POST /api/cards/:cardRefId/info': {
    access: ['support', 'finance'],
    action: 'card.info',
    auditSuccess: true,
  },
} as const satisfies Record<string, RouteRule>;

export type PayoutRouteKey = keyof typeof PAYOUT_ROUTES;
