// The payments entries of the route table (same shape as http/route-table.ts): who may call each
// route and the audit action. Types only are imported, so route-table.ts can spread these without
// an import cycle.
import type { RouteRule } from '../http/route-table.js';

const READERS = ['support', 'finance', 'ops', 'auditor'] as const;
const LOOKUP = ['support', 'finance', 'ops'] as const;
const MONEY = ['finance'] as const;

/** Entries for ROUTES in http/route-table.ts (`...PAYMENT_ROUTES`). Export before `:id`. */
export const PAYMENT_ROUTES = {
  'GET /api/transactions': { access: READERS, action: 'transaction.list', auditSuccess: false },
  'GET /api/transactions/export': {
    access: READERS,
    action: 'transaction.export',
    auditSuccess: true,
  },
  'POST /api/transactions/lookup': {
    access: LOOKUP,
    action: 'transaction.lookup',
    auditSuccess: true,
  },
  'GET /api/transactions/:id': { access: READERS, action: 'transaction.read', auditSuccess: false },
  'POST /api/transactions/:id/refresh': {
    access: LOOKUP,
    action: 'transaction.refresh',
    auditSuccess: true,
  },
  'POST /api/transactions/:id/drift/review': {
    access: MONEY,
    action: 'transaction.drift_reviewed',
    auditSuccess: true,
  },
  'POST /api/transactions/:id/capture': {
    access: MONEY,
    action: 'transaction.capture',
    auditSuccess: true,
  },
  'POST /api/transactions/:id/return': {
    access: MONEY,
    action: 'transaction.return',
    auditSuccess: true,
  },
  'POST /api/transactions/:id/void': {
    access: MONEY,
    action: 'transaction.void',
    auditSuccess: true,
  },
  'POST /api/transactions/:id/card-ref': {
    access: MONEY,
    action: 'transaction.card_ref',
    auditSuccess: true,
  },
  'POST /api/rebills': {
    access: MONEY,
    action: 'transaction.rebill',
    auditSuccess: true,
  },
  'GET /api/subscriptions': {
    access: READERS,
    action: 'subscription.list',
    auditSuccess: false,
  },
  'POST /api/subscriptions': {
    access: MONEY,
    action: 'subscription.create',
    auditSuccess: true,
  },
  'GET /api/subscriptions/:id': {
    access: READERS,
    action: 'subscription.read',
    auditSuccess: false,
  },
  'GET /api/events': {
    access: READERS,
    action: 'events.subscribe',
    auditSuccess: false,
    notActivity: true,
  },
  'GET /api/stats': { access: READERS, action: 'stats.read', auditSuccess: false },
} as const satisfies Record<string, RouteRule>;

export type PaymentRouteKey = keyof typeof PAYMENT_ROUTES;
