// The saved views' route-table entries (same shape as http/route-table.ts), in a module with no
// runtime imports so that route-table.ts can spread them without an import cycle. Any signed-in
// user may call them; the service decides which views a user sees, saves and deletes.
import type { RouteRule } from '../http/route-table.js';

/** Entries for ROUTES in http/route-table.ts (`...VIEW_ROUTES`). */
export const VIEW_ROUTES = {
  'GET /api/views': { access: 'authenticated', action: 'view.list', auditSuccess: false },
  'POST /api/views': { access: 'authenticated', action: 'view.create', auditSuccess: true },
  'DELETE /api/views/:id': { access: 'authenticated', action: 'view.delete', auditSuccess: true },
} as const satisfies Record<string, RouteRule>;

export type ViewRouteKey = keyof typeof VIEW_ROUTES;
